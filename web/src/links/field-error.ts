import { ApiError } from '../api/errors'

/**
 * The API names the field of some failures outside `details` (a 409's `details` is a string, and a
 * file's problem is reported on `content`): the failure placed at the form's field, with a sentence
 * in the person's language, so the form shows it there and focuses it.
 */
export function atField(error: unknown, field: string, text: string): ApiError {
  const reason = error instanceof ApiError ? error.reason : 'VALIDATION_FAILED'
  return new ApiError(
    error instanceof ApiError ? error.status : 400,
    reason,
    text,
    [{ field, message: text }],
    null,
  )
}
