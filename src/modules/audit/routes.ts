import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox'
import type { Deps } from '../../deps.js'
import { AuditEventPage, AuditLogQuery } from './schemas.js'
import { listAuditLog } from './service.js'

/** /api/admin/audit-log */
export function auditRoutes(deps: Deps): FastifyPluginAsyncTypebox {
  return async (app) => {
    app.get(
      '',
      {
        config: { auth: 'admin' },
        schema: {
          tags: ['administration'],
          operationId: 'listAuditEvents',
          summary: 'The audit log, newest first; filters: action (exact), actor_id, since (inclusive)',
          querystring: AuditLogQuery,
          response: { 200: AuditEventPage },
        },
      },
      async (request) => listAuditLog(deps, request.query),
    )
  }
}
