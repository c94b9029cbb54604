/**
 * What a route declares about its caller (docs/ARCHITECTURE.md, convention 6), read by the lower
 * layers that adapt to it (the OpenAPI document lists the matching error statuses). The
 * authentication hook (identity/hook.ts) enforces it:
 *
 *   config: { auth: 'public' }   no credentials needed
 *   (default)                    any signed-in user, by session or API token
 *   config: { auth: 'session' }  an interactive session only
 *                                (docs/API.md#what-an-api-token-may-not-do)
 *   config: { auth: 'admin' }    an administrator (docs/API.md#who-may-do-what)
 *   config: { auth: 'scim' }     a SCIM credential, never a user (modules/scim/http.ts checks it)
 */
export type AuthRequirement = 'public' | 'user' | 'session' | 'admin' | 'scim'

declare module 'fastify' {
  interface FastifyContextConfig {
    auth?: AuthRequirement
    /**
     * Open to a caller whom the two-factor policy restricts to enrolment (see
     * identity/mfa-policy.ts). Every other authenticated route answers them 403
     * MFA_ENROLLMENT_REQUIRED. Only what enrolment itself and the console's enrolment page need
     * may declare it.
     */
    allowedDuringEnrollment?: boolean
    /**
     * The route shows the caller's MFA status: their authentication query also reads the
     * status's columns (TOTP, pending enrolment, backup codes), so the route needs no query of its
     * own — and every other route's query does without them.
     */
    readsMfaStatus?: boolean
  }
}
