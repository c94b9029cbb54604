/**
 * What a route declares about its caller (ARCHITECTURE.md §6), read by the lower layers that
 * adapt to it (the OpenAPI document lists the matching error statuses). The auth module's hook
 * (identity/hook.ts) enforces it:
 *
 *   config: { auth: 'public' }   no credentials needed
 *   (default)                    any signed-in user, by session or API token
 *   config: { auth: 'session' }  an interactive session only (CONTRACT.md §5.4)
 *   config: { auth: 'admin' }    an administrator (CONTRACT.md §5.3)
 *   config: { auth: 'scim' }     a SCIM credential, never a user (modules/scim/http.ts checks it)
 */
export type AuthRequirement = 'public' | 'user' | 'session' | 'admin' | 'scim'

declare module 'fastify' {
  interface FastifyContextConfig {
    auth?: AuthRequirement
    /**
     * Open to a caller whom the two-factor policy restricts to enrolment (issue 14; see
     * identity/mfa-policy.ts). Every other authenticated route answers them 403
     * MFA_ENROLLMENT_REQUIRED. Only what enrolment itself and the console's enrolment page need
     * may declare it.
     */
    allowedDuringEnrollment?: boolean
    /**
     * The route shows the caller's MFA status (issue 33): their authentication query also reads the
     * status's columns (TOTP, pending enrolment, backup codes), so the route needs no query of its
     * own — and every other route's query does without them.
     */
    readsMfaStatus?: boolean
  }
}
