/**
 * The part of the instance's API token policy that decides whether a token is live: from
 * `refuse_legacy_from` on, tokens made before scopes existed (full access, `permissions` NULL)
 * answer 401 like a revoked token. The policy's settings row, with its defaults and the endpoint
 * that writes it, is the tokens module's (modules/tokens/policy.ts); its text comes with the
 * token's own authentication query, so a change applies at the very next request on every
 * instance.
 */

/** The settings row of the instance's API token policy. */
export const API_TOKEN_POLICY_KEY = 'api_tokens'

/**
 * Whether a legacy (full-access) token is refused at `now`, by the policy row's text as read with
 * the token (null: never configured, so never refused). A field the row does not hold keeps its
 * default (null: not refused), as every settings section reads.
 */
export function legacyTokensRefused(policyText: string | null, now: Date): boolean {
  if (policyText === null) return false
  const parsed: unknown = JSON.parse(policyText)
  const { refuse_legacy_from } = {
    refuse_legacy_from: null,
    ...(typeof parsed === 'object' && parsed !== null ? parsed : {}),
  } as { refuse_legacy_from: string | null }
  return refuse_legacy_from !== null && Date.parse(refuse_legacy_from) <= now.getTime()
}
