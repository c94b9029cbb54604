/**
 * What a go-link would open: the link dialog's live preview of `go/<slug>/<path>?<query>`
 * for a destination as typed — normalised and expanded by exactly the rules the redirect uses
 * (url.ts, lib/go-template.ts), so the preview cannot disagree with the redirect.
 */
import { AppError } from '../../errors.js'
import { expandDestination, parseRest } from '../../lib/go-template.js'
import type { GoPreview, GoPreviewQuery } from './schemas.js'
import { normalizeLinkUrl } from './url.js'

export function previewGoLink(query: GoPreviewQuery): GoPreview {
  let destination: string
  try {
    destination = normalizeLinkUrl(query.url)
  } catch (error) {
    if (error instanceof AppError) return { url: null, refusal: 'invalid' }
    throw error
  }
  const rest = parseRest(query.path === undefined || query.path === '' ? null : query.path)
  if (typeof rest === 'string') return { url: null, refusal: rest }
  const result = expandDestination(destination, rest, query.query ?? '')
  return result.ok ? { url: result.url, refusal: null } : { url: null, refusal: result.refusal }
}
