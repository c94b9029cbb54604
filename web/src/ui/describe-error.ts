/**
 * An API failure as the sentence a form shows, and where: at a field (from `details`, whose
 * message is the API's own, or by a reason that concerns one field, translated), or for the whole
 * form. A 429 says when to try again.
 */
import { ApiError, placeError } from '../api/errors'
import type { I18n } from '../i18n/i18n'

export interface ShownError {
  field: string | null
  text: string
  reason: string
}

export function describeError(failure: unknown, fields: readonly string[], i18n: Pick<I18n, 't' | 'reason' | 'duration'>): ShownError {
  const placed = placeError(failure, fields)
  const fromDetails = failure instanceof ApiError && placed.field !== null && failure.details.some((problem) => problem.field === placed.field)
  let text = fromDetails ? placed.message : i18n.reason(placed.reason, placed.message)
  if (failure instanceof ApiError && failure.status === 429 && failure.retryAfter !== null) {
    text = i18n.t('login.retryAfter', { time: i18n.duration(failure.retryAfter) })
  }
  return { field: placed.field, text, reason: placed.reason }
}
