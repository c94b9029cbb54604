/**
 * /api/auth/passkeys — WebAuthn credentials as a second factor and for signing in without a
 * password (docs/API.md#passkeys): the caller's passkeys, then signing in with one, in this order
 * (the order of the OpenAPI document).
 */
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox'
import type { Deps } from '../../deps.js'
import { passkeyCredentialRoutes } from './credentials.routes.js'
import { passkeySignInRoutes } from './sign-in.routes.js'

export function passkeyRoutes(deps: Deps): FastifyPluginAsyncTypebox {
  return async (app) => {
    await app.register(passkeyCredentialRoutes(deps))
    await app.register(passkeySignInRoutes(deps))
  }
}
