/**
 * What a browser gets from /go/{slug}: redirects and HTML pages, never the JSON envelope — the
 * person following a go-link reads the answer.
 */
import type { Deps } from '../../deps.js'
import { AppError } from '../../errors.js'
import { safeEqual } from '../../lib/crypto.js'
import type { Caller } from '../auth/caller.js'
import { csrfTokenFor } from '../auth/session-issuer.js'
import { chooserPage, messagePage, notFoundPage, type HtmlPage } from './html.js'
import { candidateSourceOf, isSlug, resolveGoLink, setGoPreference } from './service.js'

export type BrowserAnswer = { redirect: string; status: 302 | 303 } | { page: HtmlPage }

/** The login page of the web app, which sends the user back here once signed in. */
function toLogin(deps: Deps, slug: string, status: 302 | 303): BrowserAnswer {
  return { redirect: `${deps.config.publicUrl}/login?return_to=${encodeURIComponent(`/go/${slug}`)}`, status }
}

export async function openGoLink(deps: Deps, caller: Caller | null, slug: string): Promise<BrowserAnswer> {
  if (!isSlug(slug)) return { page: notFoundPage(slug) }
  if (caller === null) return toLogin(deps, slug, 302)
  const target = await resolveGoLink(deps, caller, slug)
  if (target.kind === 'redirect') return { redirect: target.url, status: 302 }
  if (target.kind === 'none') return { page: notFoundPage(slug) }
  const candidates = target.links.map((link) => ({ id: link.id, title: link.title, url: link.url, source: candidateSourceOf(link) }))
  return { page: chooserPage(slug, candidates, caller.sessionId === null ? null : csrfTokenFor(deps, caller.sessionId)) }
}

/** Ids this service issues are printable ASCII; anything else names no link (and stays out of SQL). */
const PLAUSIBLE_ID = /^[\x21-\x7e]{1,200}$/

/**
 * The chooser's "remember this choice" form. It is a cookie-authenticated POST that cannot carry
 * X-CSRF-Token, so the session's CSRF token comes in a hidden field and is compared in constant
 * time; a form from another site cannot know it.
 */
export async function rememberGoChoice(
  deps: Deps,
  caller: Caller | null,
  slug: string,
  form: Record<string, string | undefined>,
): Promise<BrowserAnswer> {
  if (!isSlug(slug)) return { page: notFoundPage(slug) }
  if (caller === null) return toLogin(deps, slug, 303)
  const sent = form.csrf_token
  if (caller.sessionId === null || sent === undefined || !safeEqual(sent, csrfTokenFor(deps, caller.sessionId))) {
    return {
      page: messagePage(403, 'This form has expired', 'Open the go-link again and make your choice there.', {
        href: `../${slug}`,
        label: `Open go/${slug}`,
      }),
    }
  }
  const linkId = form.link_id ?? ''
  const unavailable = () =>
    messagePage(400, 'That link is no longer available', 'It was removed, renamed or stopped forwarding.', {
      href: `../${slug}`,
      label: `Choose again for go/${slug}`,
    })
  if (!PLAUSIBLE_ID.test(linkId)) return { page: unavailable() }
  try {
    const preference = await setGoPreference(deps, caller, slug, linkId)
    // 303: the browser follows with a GET, so a reload cannot post the form again.
    return { redirect: preference.url, status: 303 }
  } catch (error) {
    if (error instanceof AppError && (error.reason === 'NOT_FOUND' || error.reason === 'VALIDATION_FAILED')) return { page: unavailable() }
    throw error
  }
}
