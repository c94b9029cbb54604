import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox'
import { Type } from '@sinclair/typebox'
import type { Deps } from '../../../deps.js'
import { callerOf, contextOf } from '../../auth/hook.js'
import { errorResponse } from '../../../plugins/openapi.js'
import { ExportQuery, IMPORT_BODY_LIMIT_BYTES, ImportBody, ImportReport, LinkExport, MAX_IMPORT_ITEMS } from './schemas.js'
import { exportLinks, importLinks } from './service.js'

const tags = ['links']

/** /api/links/import and /api/links/export: bookmark files and JSON (issue 13). */
export function bookmarkRoutes(deps: Deps): FastifyPluginAsyncTypebox {
  return async (app) => {
    app.post(
      '/import',
      {
        // A browser's bookmark file is larger than the 64 KiB every other body may be.
        bodyLimit: IMPORT_BODY_LIMIT_BYTES,
        schema: {
          tags,
          operationId: 'importLinks',
          summary: 'Import a bookmark file (Netscape HTML) or a JSON export as links; reports what it skipped and why',
          description:
            `Per item: each valid bookmark becomes a link, the others are listed in \`skipped\`. At most ${MAX_IMPORT_ITEMS} ` +
            'bookmarks per import; the body may be up to 1 MiB.',
          body: ImportBody,
          response: {
            200: ImportReport,
            400: errorResponse(
              'VALIDATION_FAILED: not a bookmark file, not JSON, or more bookmarks than one import takes (details: content); MALFORMED_JSON',
            ),
            404: errorResponse('NOT_FOUND: no such organization, or you are not a member'),
            413: errorResponse('PAYLOAD_TOO_LARGE: body over 1 MiB'),
          },
        },
      },
      async (request) => importLinks(deps, callerOf(request), request.body, contextOf(request)),
    )
    app.get(
      '/export',
      {
        schema: {
          tags,
          operationId: 'exportLinks',
          summary: 'Download the links you can see (filtered like the list) as a bookmark file or JSON',
          querystring: ExportQuery,
          response: {
            200: {
              description: 'An attachment: `format=html` a Netscape bookmark file, `format=json` the JSON export',
              content: {
                'text/html': { schema: Type.String() },
                'application/json': { schema: LinkExport },
              },
            },
          },
        },
      },
      async (request, reply) => {
        const file = await exportLinks(deps, callerOf(request), request.query)
        return reply.header('content-disposition', `attachment; filename="${file.filename}"`).type(file.contentType).send(file.body)
      },
    )
  }
}
