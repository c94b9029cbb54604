import type { Socket } from 'node:net'
import { Readable } from 'node:stream'
import type { FastifyPluginAsyncTypebox, TypeBoxTypeProvider } from '@fastify/type-provider-typebox'
import type { FastifyRequest } from 'fastify'
import { Type } from '@sinclair/typebox'
import type { Deps } from '../../../deps.js'
import { callerOf, contextOf } from '../../../identity/hook.js'
import { errorResponse } from '../../../plugins/openapi.js'
import { createSearchIndexMerge } from '../search-index.js'
import { WRITE_PART } from './batches.js'
import { tooLarge, type ImportFile } from './reader.js'
import {
  ExportQuery,
  IMPORT_BODY_LIMIT_BYTES,
  IMPORT_FILE_LIMIT_BYTES,
  ImportBody,
  ImportFileBody,
  ImportFileQuery,
  ImportReport,
  LinkExport,
  MAX_IMPORT_ITEMS,
} from './schemas.js'
import { exportLinks, importLinks, type ImportRequest } from './service.js'

const tags = ['links']
const MIB = 1024 * 1024
/**
 * Bookmarks read from which an import's garbage is collected after it (lib/heap-release.ts), and
 * links written from which the search index is merged after it (search-index.ts): a write
 * part's worth and more. Below that the heap grows by little, and the collection's pause (20–30
 * ms) would cost more than it returns; the index's own merging keeps up with small writes.
 */
const LARGE_IMPORT = WRITE_PART

const IMPORT_400 =
  'VALIDATION_FAILED: not a bookmark file, not JSON, nested too deeply, or more bookmarks than one import takes (details: content); MALFORMED_JSON'
const NOT_A_MEMBER = 'NOT_FOUND: no such organization, or you are not a member'

/**
 * How long an import's connection may stay silent while the service works. The idle-connection
 * timeout (REQUEST_TIMEOUT_SECONDS) would otherwise close it before the report goes out: writing
 * 20,000 links took 30–40 s on a loaded PostgreSQL. The request itself must still arrive within
 * the request timeout, which Node checks apart from this; the connection's keep-alive timeout
 * applies again once the answer is sent.
 */
const IMPORT_WORK_LIMIT_MS = 10 * 60 * 1000
const allowLongWork = async (request: FastifyRequest): Promise<void> => {
  // A request made in-process (Fastify inject) has no network socket to time out.
  const socket = request.raw.socket as Partial<Socket> | undefined
  if (typeof socket?.setTimeout === 'function') socket.setTimeout(IMPORT_WORK_LIMIT_MS)
}

/** The options both import routes take, from the JSON body or from the file upload's query. */
interface ImportFields {
  format: ImportFile['format']
  folders_as_tags?: boolean
  organization_id?: string | null
  create_tags?: boolean
  dry_run?: boolean
}

function importRequest(
  fields: ImportFields,
  content: ImportFile['content'],
  limitBytes: number,
): ImportRequest {
  return {
    file: {
      format: fields.format,
      content,
      limitBytes,
      foldersAsTags: fields.folders_as_tags ?? false,
    },
    organizationId: fields.organization_id,
    createTags: fields.create_tags ?? true,
    dryRun: fields.dry_run ?? false,
  }
}

/** /api/links/import, /api/links/import/file and /api/links/export: bookmark files and JSON. */
export function bookmarkRoutes(deps: Deps): FastifyPluginAsyncTypebox {
  // The search index's segments are merged between requests once a large import has written.
  const searchIndexMerge = createSearchIndexMerge(deps)
  // What a large import allocated is garbage once its report is out (lib/heap-release.ts).
  const released = (report: ImportReport): ImportReport => {
    if (report.imported + report.skipped.length >= LARGE_IMPORT) deps.heap.afterLargeWork()
    if (report.imported >= LARGE_IMPORT && !report.dry_run) searchIndexMerge.request()
    return report
  }
  return async (app) => {
    // app.close() runs this once in-flight requests are done, before the database closes.
    app.addHook('onClose', () => searchIndexMerge.close())
    app.post(
      '/import',
      {
        // Larger than the 64 KiB every other body may be; larger files go to /import/file,
        // streamed.
        bodyLimit: IMPORT_BODY_LIMIT_BYTES,
        onRequest: allowLongWork,
        schema: {
          tags,
          operationId: 'importLinks',
          summary:
            'Import a bookmark file (Netscape HTML) or a JSON export, sent as text in JSON, as links; reports what it skipped and why',
          description:
            `Per item: each valid bookmark becomes a link, the others are listed in \`skipped\`. At most ${MAX_IMPORT_ITEMS} ` +
            `bookmarks per import; this request may be up to ${IMPORT_BODY_LIMIT_BYTES / MIB} MiB — upload a larger file ` +
            `(up to ${IMPORT_FILE_LIMIT_BYTES / MIB} MiB) as it is to \`/api/links/import/file\`.`,
          body: ImportBody,
          response: {
            200: ImportReport,
            400: errorResponse(IMPORT_400),
            404: errorResponse(NOT_A_MEMBER),
            413: errorResponse(`PAYLOAD_TOO_LARGE: body over ${IMPORT_BODY_LIMIT_BYTES / MIB} MiB`),
          },
        },
      },
      async (request) =>
        released(
          await importLinks(
            deps,
            callerOf(request),
            importRequest(request.body, request.body.content, IMPORT_BODY_LIMIT_BYTES),
            contextOf(request),
          ),
        ),
    )

    // The file as the request body, read as it arrives: its own plugin, whose only body parser
    // hands the route the stream (any media type: the format is in the query).
    await app.register(async (files) => {
      files.removeAllContentTypeParsers()
      files.addContentTypeParser('*', (request, payload, done) => {
        // A declared size over the limit is refused before a byte is read (Fastify closes the
        // connection).
        if (Number(request.headers['content-length']) > IMPORT_FILE_LIMIT_BYTES)
          return done(tooLarge(IMPORT_FILE_LIMIT_BYTES), undefined)
        done(null, payload)
      })
      files.withTypeProvider<TypeBoxTypeProvider>().post(
        '/import/file',
        {
          onRequest: allowLongWork,
          schema: {
            tags,
            operationId: 'importLinkFile',
            summary:
              'Import a bookmark file (Netscape HTML) or a JSON export, uploaded as it is, as links; reports what it skipped and why',
            description:
              `The body is the file, up to ${IMPORT_FILE_LIMIT_BYTES / MIB} MiB, read as it arrives (never held whole). ` +
              `Per item, like \`/api/links/import\`; at most ${MAX_IMPORT_ITEMS} bookmarks — the one after that stops the import with a 400, ` +
              'and nothing is imported.',
            querystring: ImportFileQuery,
            rawBody: ImportFileBody,
            // Any Content-Type is the file (curl --data-binary sends form-urlencoded): never a 415.
            anyMediaType: true,
            response: {
              200: ImportReport,
              400: errorResponse(
                `${IMPORT_400}; VALIDATION_FAILED: the upload ended before the file did`,
              ),
              404: errorResponse(NOT_A_MEMBER),
              413: errorResponse(
                `PAYLOAD_TOO_LARGE: the file is over ${IMPORT_FILE_LIMIT_BYTES / MIB} MiB`,
              ),
            },
          },
        },
        async (request, reply) => {
          const body = request.body as Readable | undefined
          try {
            return released(
              await importLinks(
                deps,
                callerOf(request),
                importRequest(
                  request.query,
                  // Not destroyed when reading stops early: the answer still has to go out on
                  // this connection.
                  body === undefined
                    ? ''
                    : { [Symbol.asyncIterator]: () => body.iterator({ destroyOnReturn: false }) },
                  IMPORT_FILE_LIMIT_BYTES,
                ),
                contextOf(request),
              ),
            )
          } catch (error) {
            // The rest of a body that was not read is not waited for: the connection closes after
            // the answer.
            if (!request.raw.complete) void reply.header('connection', 'close')
            throw error
          }
        },
      )
    })

    app.get(
      '/export',
      {
        schema: {
          tags,
          operationId: 'exportLinks',
          summary:
            'Download the links you can see (filtered like the list) as a bookmark file or JSON',
          querystring: ExportQuery,
          response: {
            200: {
              description:
                'An attachment: `format=html` a Netscape bookmark file, `format=json` the JSON export',
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
        return (
          reply
            .header('content-disposition', `attachment; filename="${file.filename}"`)
            .type(file.contentType)
            // The documented body; Fastify streams a Readable as it is, without serializing it.
            .send(Readable.from(file.parts, { objectMode: false }) as unknown as string)
        )
      },
    )
  }
}
