import { Type, type Static } from '@sinclair/typebox'
import { PageOf } from '../../lib/schema-types.js'

export const ProviderLinkView = Type.Object(
  {
    provider_key: Type.String(),
    name: Type.String(),
    login_url: Type.String({
      description: '{PUBLIC_URL}/api/auth/oidc/{provider_key}/login: where a login button points',
    }),
  },
  { title: 'SignInProvider', additionalProperties: false },
)
export const ProviderLinkPage = PageOf(ProviderLinkView)

/**
 * Not checked against the key pattern: an unknown key is answered like a disabled one, by redirect.
 */
export const ProviderKeyParams = Type.Object({
  provider_key: Type.String({ minLength: 1, maxLength: 100 }),
})
export type ProviderKeyParams = Static<typeof ProviderKeyParams>

const Param = (description: string) => Type.Optional(Type.String({ maxLength: 4096, description }))

/**
 * The authorization response (RFC 6749 §4.1.2); other parameters are allowed and verified with it.
 */
export const CallbackQuery = Type.Object(
  {
    code: Param('The authorization code'),
    state: Param('Must equal the state this service sent'),
    iss: Param('The issuer (RFC 9207), checked when present'),
    error: Param('e.g. access_denied when the person declined'),
    error_description: Param('Ignored: never shown or logged'),
  },
  { additionalProperties: true },
)
export type CallbackQuery = Static<typeof CallbackQuery>

export const Redirect = Type.Null({ description: 'A redirect: see the Location header' })
