import { Type, type Static } from '@sinclair/typebox'
import { Nullable, PageOf, Timestamp } from '../../lib/schema-types.js'

export const SecurityEventView = Type.Object(
  {
    id: Type.String(),
    at: Timestamp(),
    action: Type.String({
      description:
        'auth.login, auth.login_failed, auth.mfa_verify_failed, auth.oidc_failed, auth.passkey_failed, auth.logout, auth.setup, session.revoke, user.password_change, user.password_reset_requested, user.password_reset, user.email_change_requested, user.email_verified, user.oidc_link, user.oidc_unlink, mfa.enable, mfa.disable, mfa.backup_regenerate, mfa.reset, passkey.register, passkey.rename, passkey.delete, token.create, token.revoke, admin.user_update, link.share, link.unshare',
    }),
    ip: Nullable(Type.String()),
    user_agent: Nullable(
      Type.String({
        description:
          'As sent by the client (up to 512 characters); null for events recorded before user agents were kept',
      }),
    ),
    method: Nullable(
      Type.String({
        description: 'Sign-ins: how (password, password+totp, a provider key, passkey …)',
      }),
    ),
    name: Nullable(
      Type.String({
        description: "An API token's or passkey's name; the teams of a link's sharing change",
      }),
    ),
    by_administrator: Type.Boolean({
      description: 'Someone else (an administrator) made this change to your account',
    }),
  },
  { title: 'SecurityEvent', additionalProperties: false },
)
export type SecurityEventView = Static<typeof SecurityEventView>
export const SecurityEventPage = PageOf(SecurityEventView)
