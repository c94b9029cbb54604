/**
 * What the stored two-factor policy (settings/two-factor-policy.ts) requires, read from the text of
 * its settings row. The authentication query brings that text with every credential, so
 * this is on every authenticated request's path: the last text read is remembered with its meaning,
 * and a request whose policy has not changed parses nothing. No imports of services: the
 * authentication module and the MFA status use it without an import circle.
 */
export const TWO_FACTOR_POLICIES = ['off', 'admins', 'everyone'] as const
export type TwoFactorRequirement = (typeof TWO_FACTOR_POLICIES)[number]

/** The settings row's key (its section in two-factor-policy.ts). */
export const TWO_FACTOR_POLICY_KEY = 'two_factor_policy'

let lastText: string | null = null
let lastRequirement: TwoFactorRequirement = 'off'

/**
 * The requirement a stored row's JSON text says; 'off' (the default) when never set or unreadable.
 */
export function requirementOf(text: string | null): TwoFactorRequirement {
  if (text === null) return 'off'
  if (text === lastText) return lastRequirement
  let requirement: TwoFactorRequirement = 'off'
  try {
    const { required } = JSON.parse(text) as { required?: unknown }
    if ((TWO_FACTOR_POLICIES as readonly unknown[]).includes(required))
      requirement = required as TwoFactorRequirement
  } catch {
    // Only this module's endpoint writes the row, as JSON; anything else reads as the default.
  }
  lastText = text
  lastRequirement = requirement
  return requirement
}

/** Whether the policy covers this account (regardless of whether it has a second factor). */
export function policyCovers(policy: TwoFactorRequirement, user: { is_admin: boolean }): boolean {
  return policy === 'everyone' || (policy === 'admins' && user.is_admin)
}
