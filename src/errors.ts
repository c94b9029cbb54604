/**
 * The one error type of the service and its reason catalogue (docs/API.md#reason-catalogue).
 * A reason is bound to its HTTP status here, once, so no call site can pair them differently.
 */

export const REASONS = {
  VALIDATION_FAILED: { status: 400, message: 'The request is not valid.' },
  MALFORMED_JSON: { status: 400, message: 'The request body is not valid JSON.' },
  UNSUPPORTED_MEDIA_TYPE: { status: 415, message: 'The request body must be application/json.' },
  PAYLOAD_TOO_LARGE: { status: 413, message: 'The request body is larger than 64 KiB.' },
  UNAUTHORIZED: { status: 401, message: 'Authentication is required.' },
  INVALID_CREDENTIALS: { status: 401, message: 'The email or password is incorrect.' },
  MFA_PENDING_INVALID: { status: 401, message: 'The sign-in attempt is invalid or has expired.' },
  INVALID_CODE: { status: 400, message: 'The code is incorrect.' },
  PASSWORD_REQUIRED: { status: 400, message: 'Your password is required for this operation.' },
  INVALID_PASSWORD: { status: 400, message: 'The password is incorrect.' },
  MFA_ALREADY_ENABLED: { status: 409, message: 'Two-factor authentication is already enabled.' },
  MFA_NO_PENDING: { status: 409, message: 'There is no pending two-factor enrollment.' },
  MFA_NOT_ENABLED: { status: 409, message: 'Two-factor authentication is not enabled.' },
  FORBIDDEN: { status: 403, message: 'You are not allowed to do this.' },
  SESSION_REQUIRED: {
    status: 403,
    message: 'This operation requires an interactive sign-in, not an API token.',
  },
  CSRF_FAILED: { status: 403, message: 'The CSRF token is missing or does not match.' },
  NOT_FOUND: { status: 404, message: 'Not found.' },
  METHOD_NOT_ALLOWED: { status: 405, message: 'This method is not allowed on this resource.' },
  ALREADY_EXISTS: { status: 409, message: 'It already exists.' },
  LAST_OWNER: { status: 409, message: 'The organization must keep at least one owner.' },
  LAST_ADMIN: { status: 409, message: 'The instance must keep at least one active administrator.' },
  LIMIT_REACHED: { status: 409, message: 'The limit has been reached.' },
  // Accepting a link offered to you whose slug one of your links has (the offer stands).
  TRANSFER_SLUG_TAKEN: {
    status: 409,
    message:
      'You already have a link with this slug. Rename or delete yours, then accept the offer again.',
  },
  ALREADY_INITIALIZED: { status: 409, message: 'The instance is already initialized.' },
  // The request did not arrive within REQUEST_TIMEOUT_SECONDS / HEADERS_TIMEOUT_SECONDS.
  REQUEST_TIMEOUT: { status: 408, message: 'The request took too long to arrive.' },
  RATE_LIMITED: { status: 429, message: 'Too many requests. Try again later.' },
  // The instance will not mail this address again today (docs/API.md#mail-caps).
  RECIPIENT_MAIL_LIMIT: {
    status: 429,
    message:
      'This address has been sent as many messages as it may receive today. Try again tomorrow.',
  },
  // The instance's hourly cap on mail that users trigger is reached (docs/API.md#mail-caps).
  INSTANCE_MAIL_LIMIT: {
    status: 429,
    message: 'This instance has sent as many messages as it may this hour. Try again later.',
  },
  NOT_CONFIGURED: { status: 503, message: 'This feature is not configured.' },
  UPSTREAM_FAILED: { status: 502, message: 'An external service failed.' },
  // The service's own database is unreachable (docs/API.md#status-rules).
  SERVICE_UNAVAILABLE: { status: 503, message: 'The service is temporarily unavailable.' },
  // An OIDC-linked account's email changes only at its identity provider.
  EMAIL_MANAGED_BY_PROVIDER: {
    status: 409,
    message: 'Your email address is managed by your identity provider.',
  },
  // An administrator deleting their own account through /api/admin.
  SELF_DELETION: {
    status: 409,
    message: 'Administrators delete their own account with DELETE /api/users/me.',
  },
  // An administrator changing their own credentials or privileges through /api/admin.
  SELF_SERVICE_REQUIRED: {
    status: 409,
    message: 'Change your own account through the self-service routes.',
  },
  // First-run setup from a non-loopback address without the setup code
  // (docs/API.md#first-run-setup).
  SETUP_CODE_REQUIRED: {
    status: 403,
    message:
      "Setup from this address needs the setup code printed on the server's terminal at start.",
  },
  // A passkey ceremony's challenge is unknown, used or expired (docs/API.md#passkeys).
  PASSKEY_CHALLENGE_EXPIRED: {
    status: 409,
    message: 'The passkey request has expired or was already used. Start again.',
  },
  // The authenticator's answer failed a check (origin, RP id, signature, counter, user
  // verification).
  PASSKEY_VERIFICATION_FAILED: { status: 400, message: 'The passkey could not be verified.' },
  // The account has a second factor, and this change (adding a passkey, removing the last factor)
  // needs it now: a code or an answer of a registered passkey (docs/API.md#second-factor-proof).
  SECOND_FACTOR_REQUIRED: {
    status: 400,
    message:
      'Confirm with your second factor: a code from your authenticator app, a backup code or one of your passkeys.',
  },
  // An account without a password proves itself by a recent sign-in (its window).
  RECENT_SIGN_IN_REQUIRED: {
    status: 403,
    message: 'Sign in again to confirm it is you: this change needs a recent sign-in.',
  },
  // The two-factor policy applies to the caller, who has no second factor yet; only enrolment (and
  // what shows it) is open to them (docs/API.md#two-factor-policy).
  MFA_ENROLLMENT_REQUIRED: {
    status: 403,
    message: 'Two-factor authentication is required on this instance. Set it up to continue.',
  },
  // A reset link that is unknown, used or expired (docs/API.md#password-reset).
  RESET_LINK_INVALID: {
    status: 400,
    message: 'This password reset link is invalid, expired or already used. Ask for a new one.',
  },
  // The account signs in only through its identity provider and has no password to reset.
  PASSWORD_MANAGED_BY_PROVIDER: {
    status: 409,
    message: 'This account signs in through its identity provider and has no password to reset.',
  },
  // An API token without the permission the operation needs; `details.required` names it
  // (docs/API.md#token-permissions).
  INSUFFICIENT_SCOPE: {
    status: 403,
    message: 'This API token lacks the permission this operation needs.',
  },
  INTERNAL: { status: 500, message: 'An unexpected error occurred.' },
} as const satisfies Record<string, { status: number; message: string }>

export type Reason = keyof typeof REASONS

/**
 * One invalid field. `message` is English for people reading the API; `code` is the
 * stable, machine-readable kind of problem a client translates — see FIELD_PROBLEM_CODES — with
 * the figure it needs (`limit`), the accepted values (`allowed`) or the expected format (`format`).
 */
export interface FieldProblem {
  field: string
  message: string
  code?: FieldProblemCode
  limit?: number
  allowed?: string[]
  format?: string
}

/**
 * The codes of `details[].code` (documented in the OpenAPI document); a client maps each to a
 * sentence.
 */
export const FIELD_PROBLEM_CODES = [
  'required',
  'unknown_field',
  'too_few_fields',
  'empty',
  'too_short',
  'too_long',
  'too_small',
  'too_large',
  'not_one_of',
  'format',
  'invalid_characters',
  'pattern',
  'wrong_type',
  // A new password that is the account's email address, or one of the passwords attackers try
  // first.
  'same_as_email',
  'common_password',
  'invalid',
] as const
export type FieldProblemCode = (typeof FIELD_PROBLEM_CODES)[number]

/** The permission an API token lacks, machine-readably. */
export interface ScopeProblem {
  required: string
}

export interface AppErrorOptions {
  message?: string
  /**
   * On 400: one entry per invalid field. On 409: what the request conflicts with. On 403
   * INSUFFICIENT_SCOPE: the permission needed.
   */
  details?: FieldProblem[] | string | ScopeProblem
  /** On 429: whole seconds until a retry can succeed. */
  retryAfter?: number
  /**
   * Overrides the catalogue status where the contract binds one reason to two (INVALID_CODE: 401 at
   * login).
   */
  status?: number
}

export class AppError extends Error {
  readonly reason: Reason
  readonly status: number
  readonly details?: FieldProblem[] | string | ScopeProblem
  readonly retryAfter?: number

  constructor(reason: Reason, options: AppErrorOptions = {}) {
    // An AppError is an expected answer, not a fault: its stack is never used, and capturing one
    // is the costliest part of refusing a request (a flood of bad credentials, say).
    const stackTraceLimit = Error.stackTraceLimit
    Error.stackTraceLimit = 0
    super(options.message ?? REASONS[reason].message)
    Error.stackTraceLimit = stackTraceLimit
    this.name = 'AppError'
    this.reason = reason
    this.status = options.status ?? REASONS[reason].status
    if (options.details !== undefined) this.details = options.details
    if (options.retryAfter !== undefined) this.retryAfter = options.retryAfter
  }
}

/**
 * Shorthand for the most common 400: a single field that failed a rule the schema cannot express.
 */
export function invalidField(
  field: string,
  message: string,
  code: FieldProblemCode = 'invalid',
  figures: Pick<FieldProblem, 'limit' | 'format'> = {},
): AppError {
  return new AppError('VALIDATION_FAILED', { details: [{ field, message, code, ...figures }] })
}
