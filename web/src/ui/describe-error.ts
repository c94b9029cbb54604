/**
 * An API failure as the sentence a form shows, and where: at a field (from `details`, whose
 * message is the API's own, or by a reason that concerns one field, translated), or for the whole
 * form. A 429 says when to try again.
 */
import { ApiError, placeError, type FieldProblem } from '../api/errors'
import type { I18n } from '../i18n/i18n'

export interface ShownError {
  field: string | null
  text: string
  reason: string
  /** Every field of the form in error, with its sentence (a form shows them all at once). */
  fields: Record<string, string>
}

/**
 * A field problem in the person's language, by its code: what is wrong and what to do.
 * The API's English message is shown only to English readers, for a service rule without a
 * finer code (`invalid`) — never schema text, and never English on a German page.
 */
export function describeProblem(problem: FieldProblem, i18n: Pick<I18n, 't' | 'language'>): string {
  const { t } = i18n
  switch (problem.code) {
    case 'required':
    case 'empty':
      return t('validation.required')
    case 'too_short':
      return t('validation.too_short', { limit: problem.limit ?? 1 })
    case 'too_long':
      return t('validation.too_long', { limit: problem.limit ?? 0 })
    case 'too_small':
      return t('validation.too_small', { limit: problem.limit ?? 0 })
    case 'too_large':
      return t('validation.too_large', { limit: problem.limit ?? 0 })
    case 'not_one_of':
      return t('validation.not_one_of')
    case 'format':
      return problem.format === 'email'
        ? t('validation.format_email')
        : problem.format === 'uri'
          ? t('validation.format_uri')
          : t('validation.format')
    case 'invalid_characters':
      return t('validation.invalid_characters')
    case 'taken':
      return t('validation.taken')
    case 'same_as_email':
      return t('validation.same_as_email')
    case 'common_password':
      return t('validation.common_password')
    case 'pattern':
      return t('validation.pattern')
    case 'invalid':
      return i18n.language.startsWith('en') && problem.message !== ''
        ? capitalize(problem.message)
        : t('validation.invalid')
    case undefined:
      // Placed by the console itself (links/field-error.ts), already in the person's language.
      return problem.message
    default:
      return t('validation.invalid')
  }
}

function capitalize(text: string): string {
  return `${text.charAt(0).toUpperCase()}${text.slice(1)}${/[.!?]$/.test(text) ? '' : '.'}`
}

export function describeError(
  failure: unknown,
  fields: readonly string[],
  i18n: Pick<I18n, 't' | 'reason' | 'duration' | 'language'>,
): ShownError {
  const placed = placeError(failure, fields)
  const detail =
    failure instanceof ApiError && placed.field !== null
      ? failure.details.find((problem) => problem.field === placed.field)
      : undefined
  let text =
    detail !== undefined
      ? describeProblem(detail, i18n)
      : i18n.reason(placed.reason, placed.message)
  if (failure instanceof ApiError && failure.status === 429 && failure.retryAfter !== null) {
    text = i18n.t('login.retryAfter', { time: i18n.duration(failure.retryAfter) })
  }
  const all: Record<string, string> = {}
  if (failure instanceof ApiError) {
    for (const problem of failure.details)
      if (fields.includes(problem.field)) all[problem.field] ??= describeProblem(problem, i18n)
  }
  if (placed.field !== null) all[placed.field] ??= text
  return { field: placed.field, text, reason: placed.reason, fields: all }
}
