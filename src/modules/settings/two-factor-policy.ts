/**
 * The instance's two-factor policy: a typed settings section, `two_factor_policy`,
 * holding `{ required: 'off' | 'admins' | 'everyone' }`. Changing it is an administrator's security
 * change: an interactive session and a fresh proof (password, and a code when their own two-factor
 * authentication is on), audited as `settings.two_factor_policy`. An administrator who has no
 * second factor cannot require one (409 MFA_NOT_ENABLED): they would lock their own session into
 * enrolment.
 *
 * Every authenticated request asks whether the policy applies to its caller
 * (identity/mfa-policy.ts): the row's text comes with the authentication query itself
 * (identity/two-factor-requirement.ts reads it), so a change applies at the very next request on
 * every instance, at no extra query.
 */
import type { Deps } from '../../deps.js'
import { AppError } from '../../errors.js'
import type { Caller, RequestContext } from '../../identity/caller.js'
import { verifyCurrentPassword } from '../../identity/reauth.js'
import { assertSecondFactorIfEnabled, isMfaEnabled } from '../mfa/service.js'
import { readSection, updateSection, type Section } from './sections.js'
import {
  TWO_FACTOR_POLICY_KEY,
  type TwoFactorRequirement,
} from '../../identity/two-factor-requirement.js'
import type { TwoFactorPolicyView, UpdateTwoFactorPolicyBody } from './two-factor-policy.schemas.js'

export interface StoredTwoFactorPolicy {
  required: TwoFactorRequirement
}

export const TWO_FACTOR_POLICY_SECTION: Section<StoredTwoFactorPolicy> = {
  key: TWO_FACTOR_POLICY_KEY,
  defaults: { required: 'off' },
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
    throw new AppError('MFA_NOT_ENABLED', {
      message: 'Turn on two-factor authentication for your own account before requiring it.',
    })
  }
  const change = {
    actor: caller.user,
    ctx,
    action: 'settings.two_factor_policy',
    fields: ['required'],
  }
  await updateSection(deps, TWO_FACTOR_POLICY_SECTION, change, () => ({ required: body.required }))
  return getTwoFactorPolicy(deps)
}
