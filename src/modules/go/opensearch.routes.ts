/**
 * GET /opensearch.xml: an OpenSearch description whose search opens `${PUBLIC_URL}/go/<terms>`,
 * so a browser offers the instance as a search keyword ("go wiki" opens go/wiki). The console's
 * pages link it with `<link rel="search">`.
 */
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox'
import { Type } from '@sinclair/typebox'
import type { Deps } from '../../deps.js'

export const OPENSEARCH_TYPE = 'application/opensearchdescription+xml'

function escapeXml(text: string): string {
  return text
    .replaceAll('&', '&amp;')
    .replaceAll('<', '&lt;')
    .replaceAll('>', '&gt;')
    .replaceAll('"', '&quot;')
}

/** The description document for an instance reached at `publicUrl`. */
export function openSearchDescription(publicUrl: string): string {
  const base = escapeXml(publicUrl)
  return [
    '<?xml version="1.0" encoding="UTF-8"?>',
    '<OpenSearchDescription xmlns="http://a9.com/-/spec/opensearch/1.1/">',
    '  <ShortName>go</ShortName>',
    '  <Description>Open a go-link of this Switchboard</Description>',
    '  <InputEncoding>UTF-8</InputEncoding>',
    `  <Url type="text/html" method="get" template="${base}/go/{searchTerms}"/>`,
    `  <Url type="${OPENSEARCH_TYPE}" rel="self" template="${base}/opensearch.xml"/>`,
    '</OpenSearchDescription>',
    '',
  ].join('\n')
}

export function openSearchRoutes(deps: Deps): FastifyPluginAsyncTypebox {
  const document = openSearchDescription(deps.config.publicUrl)
  return async (app) => {
    app.get(
      '/opensearch.xml',
      {
        config: { auth: 'public' },
        schema: {
          tags: ['go-links'],
          summary: 'The OpenSearch description of the go-links',
          description:
            'A browser that reads it offers the instance as a search keyword: the search terms ' +
            'open `/go/{searchTerms}`. Public; the same for every caller.',
          operationId: 'getOpenSearchDescription',
          database: false,
          response: {
            200: {
              description: 'An OpenSearch 1.1 description document',
              content: { [OPENSEARCH_TYPE]: { schema: Type.String() } },
            },
          },
        },
      },
      async (_request, reply) =>
        reply
          .type(`${OPENSEARCH_TYPE}; charset=utf-8`)
          .header('cache-control', 'public, max-age=3600')
          .send(document),
    )
  }
}
