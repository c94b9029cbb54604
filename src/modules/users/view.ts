import type { UserRecord } from '../../identity/user.js'
import type { UserView } from './schemas.js'

/**
 * The seed's User (docs/API.md#the-user-object): exactly these 12 fields, real booleans, null where
 * empty.
 */
export function toUserView(user: UserRecord): UserView {
  return {
    id: user.id,
    email: user.email,
    name: user.name,
    user_key: user.user_key,
    is_admin: user.is_admin,
    language: user.language,
    theme: user.theme as UserView['theme'],
    ai_suggestions_enabled: user.ai_suggestions_enabled,
    email_pending: user.email_pending,
    oidc_provider: user.oidc_provider,
    oidc_sub: user.oidc_sub,
    has_password: user.has_password,
  }
}
