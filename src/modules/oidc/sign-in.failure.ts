/**
 * Why an OIDC sign-in failed: the code the browser is sent back with (`/login?error=<code>`), and
 * a detail for the log and nothing else (docs/API.md#oidc-sign-in lists the codes).
 */
export const SIGN_IN_ERROR_CODES = [
  'PROVIDER_NOT_FOUND',
  'INVALID_STATE',
  'ACCESS_DENIED',
  'PROVIDER_ERROR',
  'ACCOUNT_NOT_FOUND',
  'ACCOUNT_DISABLED',
  'EMAIL_NOT_VERIFIED',
  'EMAIL_IN_USE',
  // An account has this email, but the provider may not link it by email — sign in
  // first and link the provider from the profile.
  'LINK_REQUIRED',
  // Linking from the profile: the identity already belongs to another account, or the session
  // ended.
  'IDENTITY_IN_USE',
  'SESSION_ENDED',
] as const

export type SignInErrorCode = (typeof SIGN_IN_ERROR_CODES)[number]

export class SignInFailure extends Error {
  constructor(
    readonly code: SignInErrorCode,
    /** What happened, safe to log: never a secret, token or the provider's free text. */
    readonly detail: string,
    /** The account concerned, when one was found. */
    readonly userId: string | null = null,
  ) {
    super(detail)
    this.name = 'SignInFailure'
  }
}
