/**
 * The instance's two-factor policy (issue 14 point 2): a typed settings section, `two_factor_policy`,
 * holding `{ required: 'off' | 'admins' | 'everyone' }`. Changing it is an administrator's security
 * change: an interactive session and a fresh proof (password, and a code when their own two-factor
 * authentication is on), audited as `settings.two_factor_policy`. An administrator who has no second
 * factor cannot require one (409 MFA_NOT_ENABLED): they would lock their own session into enrolment.
 *
 * Every authenticated request asks whether the policy applies to its caller (auth/mfa-policy.ts),
 * so the value is cached per process for a few seconds: another instance's change takes effect
 * here within POLICY_CACHE_MS; this instance's own change at once.
 */
import type { Deps } from '../../deps.js'
import { AppError } from '../../errors.js'
import type { Caller } from '../auth/caller.js'
import type { RequestContext } from '../audit/service.js'
import { verifyCurrentPassword } from '../auth/reauth.js'
import { assertSecondFactorIfEnabled, isMfaEnabled } from '../mfa/service.js'
import { readSection, updateSection, type Section } from './sections.js'
import type { TwoFactorPolicyView, TwoFactorRequirement, UpdateTwoFactorPolicyBody } from './two-factor-policy.schemas.js'

export interface StoredTwoFactorPolicy {
  required: TwoFactorRequirement
}

export const TWO_FACTOR_POLICY_SECTION: Section<StoredTwoFactorPolicy> = { key: 'two_factor_policy', defaults: { required: 'off' } }

const POLICY_CACHE_MS = 5000
const cache = new WeakMap<Deps, { value: TwoFactorRequirement; until: number }>()

/** The policy now (cached for a few seconds per process). */
export async function currentTwoFactorPolicy(deps: Deps): Promise<TwoFactorRequirement> {
  const hit = cache.get(deps)
  if (hit !== undefined && hit.until > Date.now()) return hit.value
  const { stored } = await readSection(deps, TWO_FACTOR_POLICY_SECTION)
  const value = stored.required
  cache.set(deps, { value, until: Date.now() + POLICY_CACHE_MS })
  return value
}

/** Whether the policy covers this account (regardless of whether it has a second factor). */
export function policyCovers(policy: TwoFactorRequirement, user: { is_admin: boolean }): boolean {
  return policy === 'everyone' || (policy === 'admins' && user.is_admin)
}

export async function getTwoFactorPolicy(deps: Deps): Promise<TwoFactorPolicyView> {
  const { stored, row } = await readSection(deps, TWO_FACTOR_POLICY_SECTION)
  return { required: stored.required, updated_at: row?.updated_at ?? null }
}

export async function updateTwoFactorPolicy(
  deps: Deps,
  caller: Caller,
  body: UpdateTwoFactorPolicyBody,
  ctx: RequestContext,
): Promise<TwoFactorPolicyView> {
  if (caller.credential !== 'session') throw new AppError('SESSION_REQUIRED')
  await verifyCurrentPassword(deps, caller.user.id, body.current_password)
  await assertSecondFactorIfEnabled(deps, caller.user.id, body.code)
  if (body.required !== 'off' && !(await isMfaEnabled(deps.db, caller.user.id))) {
    throw new AppError('MFA_NOT_ENABLED', { message: 'Turn on two-factor authentication for your own account before requiring it.' })
  }
  const change = { actor: caller.user, ctx, action: 'settings.two_factor_policy', fields: ['required'] }
  await updateSection(deps, TWO_FACTOR_POLICY_SECTION, change, () => ({ required: body.required }))
  cache.delete(deps)
  return getTwoFactorPolicy(deps)
}
