/**
 * Errors as the console understands them: the API's envelope (`reason`, `details[].field`,
 * `retryAfter`) turned into something a page can show at a field or as a sentence, by reason.
 */
export interface FieldProblem {
  field: string
  /** The API's English sentence: shown only when there is no code to translate. */
  message: string
  /**
   * Stable kind of problem, translated by the console: see validation.* in the catalogues.
   * `taken` is the console's own, for a 409 ALREADY_EXISTS that names its field.
   */
  code?: string
  limit?: number
  allowed?: string[]
  format?: string
}

export class ApiError extends Error {
  constructor(
    readonly status: number,
    readonly reason: string,
    message: string,
    readonly details: FieldProblem[],
    /** Seconds until a retry may succeed (429 only). */
    readonly retryAfter: number | null,
  ) {
    super(message)
    this.name = 'ApiError'
  }

  static from(status: number, body: unknown, retryAfterHeader: string | null = null): ApiError {
    const envelope = (typeof body === 'object' && body !== null ? body : {}) as Record<
      string,
      unknown
    >
    const reason =
      typeof envelope.reason === 'string'
        ? envelope.reason
        : status >= 500
          ? 'SERVICE_UNAVAILABLE'
          : 'UNKNOWN'
    const message = typeof envelope.message === 'string' ? envelope.message : `HTTP ${status}`
    const details = Array.isArray(envelope.details)
      ? envelope.details.filter(isFieldProblem)
      : // A 409 ALREADY_EXISTS names its field in a string: placed there, as a problem of the
        // console's own code `taken`.
        reason === 'ALREADY_EXISTS' && typeof envelope.details === 'string'
        ? [{ field: envelope.details, message, code: 'taken' }]
        : []
    const retry =
      typeof envelope.retryAfter === 'number'
        ? envelope.retryAfter
        : retryAfterHeader !== null
          ? Number(retryAfterHeader)
          : NaN
    return new ApiError(status, reason, message, details, Number.isFinite(retry) ? retry : null)
  }
}

/** The service could not be reached at all (offline, server down, proxy error page). */
export class NetworkError extends Error {
  constructor(cause: unknown) {
    super('network error', { cause })
    this.name = 'NetworkError'
  }
}

function isFieldProblem(value: unknown): value is FieldProblem {
  return (
    typeof value === 'object' &&
    value !== null &&
    typeof (value as FieldProblem).field === 'string' &&
    typeof (value as FieldProblem).message === 'string'
  )
}

/** Problems by field name; the first message wins (the API already sends one per field). */
export function fieldErrors(error: unknown): Record<string, string> {
  const out: Record<string, string> = {}
  if (!(error instanceof ApiError)) return out
  for (const problem of error.details) out[problem.field] ??= problem.message
  return out
}

/** Reasons that belong to a field although the API sends no details for them. */
const REASON_FIELD: Record<string, string> = {
  INVALID_CREDENTIALS: 'password',
  INVALID_PASSWORD: 'password',
  PASSWORD_REQUIRED: 'password',
  INVALID_CODE: 'code',
  SECOND_FACTOR_REQUIRED: 'code',
}

/**
 * Where an error is shown: at a field of the form (by `details`, or by a reason that concerns one
 * field) or, failing that, as a sentence for the whole form. `fields` are the form's field names.
 */
export function placeError(
  error: unknown,
  fields: readonly string[],
): { field: string | null; reason: string; message: string } {
  if (!(error instanceof ApiError))
    return {
      field: null,
      reason: error instanceof NetworkError ? 'NETWORK' : 'UNKNOWN',
      message: '',
    }
  const byDetails = error.details.find((problem) => fields.includes(problem.field))
  if (byDetails) return { field: byDetails.field, reason: error.reason, message: byDetails.message }
  const byReason = REASON_FIELD[error.reason]
  const field =
    byReason !== undefined
      ? (fields.find((name) => name === byReason || name.endsWith(`_${byReason}`)) ?? null)
      : null
  return { field, reason: error.reason, message: error.message }
}
