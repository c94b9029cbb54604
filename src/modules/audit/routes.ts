import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox'
import { Type } from '@sinclair/typebox'
import type { Deps } from '../../deps.js'
import { callerOf, contextOf } from '../../identity/hook.js'
import { exportAuditLog } from './export.js'
import {
  AUDIT_EXPORT_MEDIA_TYPES,
  AuditEventPage,
  AuditExportQuery,
  AuditLogQuery,
} from './schemas.js'
import { listAuditLog } from './service.js'

const tags = ['administration']

/** /api/admin/audit-log */
export function auditRoutes(deps: Deps): FastifyPluginAsyncTypebox {
  return async (app) => {
    app.get(
      '',
      {
        config: { auth: 'admin' },
        schema: {
          tags,
          operationId: 'listAuditEvents',
          summary:
            'The audit log, newest first, with target names; filters: action (prefix), actor_id, since (inclusive), until (exclusive)',
          querystring: AuditLogQuery,
          response: { 200: AuditEventPage },
        },
      },
      async (request) => listAuditLog(deps, request.query),
    )

    app.get(
      '/export',
      {
        config: { auth: 'admin' },
        schema: {
          tags,
          operationId: 'exportAuditEvents',
          summary:
            'The filtered audit log as a download: CSV or JSON Lines, newest first, streamed',
          description:
            'Every event the filters select (the same filters as the list, no paging), streamed in batches so memory stays bounded. ' +
            'CSV: a header line, every cell quoted, metadata as JSON, and a cell starting with = + - @ (or a tab or carriage return) prefixed ' +
            "with an apostrophe so spreadsheets do not run it as a formula. JSON Lines: one event per line, as the list's items. " +
            'Verifiable: a header line with the signed checkpoint made for the export and the verifier key, then every leaf oldest ' +
            'first with its leaf_index and leaf_hash (a redacted one as its hash only); with filters, the matching events each with its ' +
            'inclusion_proof. `switchboard audit verify <file> --key <verifier key>` checks it offline. ' +
            'Sent as an attachment (Content-Disposition). The export itself is audited (audit.export).',
          querystring: AuditExportQuery,
          response: {
            200: {
              description: 'The events, newest first',
              content: {
                'text/csv': { schema: Type.String() },
                'application/jsonl': { schema: Type.String() },
              },
            },
          },
        },
      },
      async (request, reply) => {
        const download = await exportAuditLog(
          deps,
          callerOf(request).user,
          request.query,
          contextOf(request),
        )
        return (
          reply
            .type(AUDIT_EXPORT_MEDIA_TYPES[request.query.format])
            .header('content-disposition', `attachment; filename="${download.filename}"`)
            // The documented body is text; Fastify streams a Readable as it is, without serializing
            // it.
            .send(download.body as unknown as string)
        )
      },
    )
  }
}
