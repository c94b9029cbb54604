import type { UserRecord } from './user.js'
import type { MfaState } from './second-factor.js'
import type { TwoFactorRequirement } from './two-factor-requirement.js'

/**
 * What a personal API token carries (permissions.ts), parsed once per
 * token row read so the per-request checks are set lookups.
 */
export interface TokenGrant {
  /** The permissions granted, write implying read; null for a legacy token (full access). */
  permissions: ReadonlySet<string> | null
  /**
   * The organizations the token may reach (empty: personal resources only); null for all of the
   * owner's.
   */
  organizations: ReadonlySet<string> | null
}

/** Where a request came from: recorded with every change it makes. */
export interface RequestContext {
  ip: string | null
  userAgent: string | null
}

/** Who is making the request, as established once per request by the authentication hook. */
export interface Caller {
  user: UserRecord
  /** `session`: an interactive sign-in (access JWT); `api_token`: a personal API token. */
  credential: 'session' | 'api_token'
  sessionId: string | null
  tokenId: string | null
  /**
   * The token's permissions and organization boundary; null for a session (no limits beyond the
   * user's).
   */
  grant: TokenGrant | null
  /**
   * Read with the credential, by the same query: the user's second factors, the
   * instance's two-factor policy, and whether a trusted identity provider vouched for MFA at this
   * session's sign-in (false for a token). What the policy check and the MFA status need.
   */
  mfa: MfaState
  twoFactorPolicy: TwoFactorRequirement
  vouchedByProvider: boolean
  /**
   * When the session's holder last proved who they are (sign-in or re-authentication),
   * epoch ms, read with the session row; null for an API token or a session that never did.
   */
  reauthenticatedMs: number | null
}

/**
 * Whether the caller may reach this organization's resources: always for a session; for a token,
 * when the organization is inside its boundary. Outside it, the organization is as invisible as to
 * a non-member (404).
 */
export function reachesOrganization(caller: Caller, organizationId: string): boolean {
  const organizations = caller.grant?.organizations ?? null
  return organizations === null || organizations.has(organizationId)
}
