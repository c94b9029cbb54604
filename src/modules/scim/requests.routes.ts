import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox'
import type { Deps } from '../../deps.js'
import { ScimRequestList } from './requests.schemas.js'
import { recentScimRequests } from './requests.service.js'

const tags = ['administration']

/**
 * /api/admin/scim/requests — the last SCIM requests, for an administrator finding why provisioning
 * failed.
 */
export function scimRequestRoutes(deps: Deps): FastifyPluginAsyncTypebox {
  return async (app) => {
    app.get(
      '',
      {
        config: { auth: 'admin' },
        schema: {
          tags,
          operationId: 'listScimRequests',
          summary:
            'The last 50 SCIM requests on every instance, newest first (method, path, status, credential; no bodies)',
          response: { 200: ScimRequestList },
        },
      },
      async () => ({ items: await recentScimRequests(deps) }),
    )
  }
}
