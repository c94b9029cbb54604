/**
 * The URLs of OIDC sign-in, all under PUBLIC_URL: the service's own routes, which providers and
 * login pages point at, and the web app's pages that the callback sends the browser to.
 */
export const SIGN_IN_PATH = '/api/auth/oidc/'

/** The browser's path to the sign-in routes (PUBLIC_URL may have a path of its own). */
export function signInCookiePath(publicUrl: string): string {
  return `${new URL(publicUrl).pathname.replace(/\/$/, '')}${SIGN_IN_PATH}`
}

export function loginUrl(publicUrl: string, providerKey: string): string {
  return `${publicUrl}${SIGN_IN_PATH}${providerKey}/login`
}

/** The redirect URI to register at the provider. */
export function callbackUrl(publicUrl: string, providerKey: string): string {
  return `${publicUrl}${SIGN_IN_PATH}${providerKey}/callback`
}

/** Signed in: the app's start page, with the session cookies set. */
export function appHomeUrl(publicUrl: string): string {
  return `${publicUrl}/`
}

/**
 * The second step for a user with MFA. The token travels in the fragment, which browsers never
 * send to a server, so it appears in no access log, proxy log or Referer header.
 */
export function mfaStepUrl(
  publicUrl: string,
  challenge: { mfaToken: string; expiresAt: string },
): string {
  return `${publicUrl}/login/mfa#${new URLSearchParams({ mfa_token: challenge.mfaToken, expires_at: challenge.expiresAt }).toString()}`
}

/** After linking a provider from the profile: back to the profile page, with the outcome. */
export function profileUrl(
  publicUrl: string,
  outcome: { linked: string } | { link_error: string },
): string {
  return `${publicUrl}/account?${new URLSearchParams(outcome).toString()}`
}

export function loginErrorUrl(publicUrl: string, code: string): string {
  return `${publicUrl}/login?${new URLSearchParams({ error: code }).toString()}`
}
