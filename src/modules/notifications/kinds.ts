/**
 * Which audit events call for a security notification. Notifications follow the
 * audit trail: every change that is audited with one of these actions queues its mail in the same
 * transaction (audit/service.ts), so no writer can forget one — including writers added later
 * (passkeys: `passkey.register`, `passkey.delete`).
 */
export const NOTIFICATION_KINDS = {
  'auth.login': 'new_sign_in',
  'user.password_change': 'password_changed',
  'user.password_reset': 'password_reset',
  'user.email_change_requested': 'email_change_requested',
  'user.email_verified': 'email_changed',
  'mfa.enable': 'two_factor_enabled',
  'mfa.disable': 'two_factor_disabled',
  'mfa.backup_regenerate': 'backup_codes_regenerated',
  'mfa.reset': 'two_factor_reset',
  'passkey.register': 'passkey_added',
  'passkey.delete': 'passkey_removed',
  'token.create': 'api_token_created',
} as const satisfies Record<string, string>

export type NotificationKind =
  (typeof NOTIFICATION_KINDS)[keyof typeof NOTIFICATION_KINDS] | 'administration_trust_changed'

/**
 * The instance's credential-equivalent changes (a SCIM credential, where mail goes, an identity
 * provider's issuer or trust): every other active administrator hears of each. An update counts
 * when its audit metadata says `trust_changed`.
 */
const ADMINISTRATION_CHANGES: Readonly<Record<string, AdministrationChange>> = {
  'scim.credential_create': 'scim_credential',
  'oidc_provider.create': 'identity_provider',
  'oidc_provider.update': 'identity_provider',
  'smtp.update': 'smtp',
}
export type AdministrationChange = 'scim_credential' | 'identity_provider' | 'smtp'

export function administrationChangeOf(
  action: string,
  metadata: Record<string, unknown>,
): AdministrationChange | null {
  if (!Object.hasOwn(ADMINISTRATION_CHANGES, action)) return null
  const creates = action.endsWith('create')
  return creates || metadata.trust_changed === true ? ADMINISTRATION_CHANGES[action]! : null
}

export function notificationKindOf(action: string): NotificationKind | null {
  return Object.hasOwn(NOTIFICATION_KINDS, action)
    ? NOTIFICATION_KINDS[action as keyof typeof NOTIFICATION_KINDS]
    : null
}

/**
 * What a notification says beyond its kind: where and when, and a name or a masked address. Never a
 * secret.
 */
export interface NotificationParams {
  at: string
  ip: string | null
  browser: string | null
  system: string | null
  /** The API token's or passkey's name. */
  name?: string
  /** email_change_requested: the new address, masked (`j•••@e•••.com`). */
  new_email_masked?: string
  /** two_factor_reset: an administrator did it (false: the operator, from the command line). */
  by_administrator?: boolean
  /** administration_trust_changed: what changed, and the acting administrator, masked. */
  change?: AdministrationChange
  actor_email_masked?: string
}
