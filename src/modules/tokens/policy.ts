/**
 * The instance's API token policy, a typed settings section `api_tokens`:
 *
 * - `max_lifetime_days`: the longest expiry a new token may have (default and ceiling 365 days; an
 *   administrator can lower it). Every new token expires; 30 days unless its creator says
 *   otherwise.
 * - `refuse_legacy_from`: from this instant on, tokens made before scopes existed (full access,
 *   `permissions` NULL) answer 401 like a revoked token; null = they keep working.
 *
 * Only a legacy token's authentication looks at the policy, in the settings row's text that its
 * authentication query brought along: a change applies at the very next request on every
 * instance. Token creation reads the lifetime through a per-process cache of a few seconds (another
 * instance's change applies here within POLICY_CACHE_MS, this instance's at once).
 */
import type { Deps } from '../../deps.js'
import { AppError } from '../../errors.js'
import type { Caller, RequestContext } from '../../identity/caller.js'
import { readSection, updateSection, type Section } from '../settings/sections.js'
import { DEFAULT_LIFETIME_DAYS, LIFETIME_CEILING_DAYS } from './limits.js'
import { API_TOKEN_POLICY_KEY } from '../../identity/api-token-policy.js'
import type {
  ApiTokenPolicyView,
  ApiTokenSettingsView,
  UpdateApiTokenSettingsBody,
} from './schemas.js'

export interface StoredApiTokenPolicy {
  max_lifetime_days: number
  refuse_legacy_from: string | null
}

export const API_TOKEN_SECTION: Section<StoredApiTokenPolicy> = {
  key: API_TOKEN_POLICY_KEY,
  defaults: { max_lifetime_days: LIFETIME_CEILING_DAYS, refuse_legacy_from: null },
}

const POLICY_CACHE_MS = 5000
const cache = new WeakMap<Deps, { value: StoredApiTokenPolicy; until: number }>()

export async function currentTokenPolicy(deps: Deps): Promise<StoredApiTokenPolicy> {
  const hit = cache.get(deps)
  if (hit !== undefined && hit.until > Date.now()) return hit.value
  const { stored } = await readSection(deps, API_TOKEN_SECTION)
  cache.set(deps, { value: stored, until: Date.now() + POLICY_CACHE_MS })
  return stored
}

/** What a token's creator needs to know: the default and the longest lifetime allowed. */
export async function getApiTokenPolicy(deps: Deps): Promise<ApiTokenPolicyView> {
  const policy = await currentTokenPolicy(deps)
  return {
    default_lifetime_days: Math.min(DEFAULT_LIFETIME_DAYS, policy.max_lifetime_days),
    max_lifetime_days: policy.max_lifetime_days,
    legacy_refused_from: policy.refuse_legacy_from,
  }
}

export async function getApiTokenSettings(deps: Deps): Promise<ApiTokenSettingsView> {
  const { stored, row } = await readSection(deps, API_TOKEN_SECTION)
  return { ...stored, updated_at: row?.updated_at ?? null }
}

export async function updateApiTokenSettings(
  deps: Deps,
  caller: Caller,
  body: UpdateApiTokenSettingsBody,
  ctx: RequestContext,
): Promise<ApiTokenSettingsView> {
  if (body.refuse_legacy_from != null && Number.isNaN(Date.parse(body.refuse_legacy_from))) {
    throw new AppError('VALIDATION_FAILED', {
      details: [{ field: 'refuse_legacy_from', message: 'must be a date-time' }],
    })
  }
  const fields = Object.keys(body)
  const change = { actor: caller.user, ctx, action: 'settings.api_tokens', fields }
  await updateSection(deps, API_TOKEN_SECTION, change, (current) => ({
    max_lifetime_days: body.max_lifetime_days ?? current.max_lifetime_days,
    refuse_legacy_from:
      body.refuse_legacy_from === undefined
        ? current.refuse_legacy_from
        : body.refuse_legacy_from === null
          ? null
          : new Date(body.refuse_legacy_from).toISOString(),
  }))
  cache.delete(deps)
  return getApiTokenSettings(deps)
}
