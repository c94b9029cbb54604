/** POST /api/links/suggestions: what the link dialog offers for a new link (docs/API.md). */
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox'
import type { Deps } from '../../deps.js'
import { callerOf } from '../../identity/hook.js'
import { errorResponse } from '../../plugins/openapi.js'
import { perUser } from '../../plugins/rate-limit.js'
import {
  LinkSuggestions,
  LinkTagSuggestions,
  MAX_SUGGESTED_LINKS,
  SuggestLinkBody,
  SuggestLinkTagsBody,
} from './schemas.js'
import { suggestLinkDetails, suggestLinkTags } from './service.js'

/** Each call may fetch a page; a bulk suggestion of 100 links fits, a script does not. */
export const SUGGESTIONS_LIMIT = { max: 300, minutes: 15 }
/** Each bulk call may read up to 100 pages: a person reviewing a few batches fits. */
export const BULK_SUGGESTIONS_LIMIT = { max: 20, minutes: 15 }

export function suggestionRoutes(deps: Deps): FastifyPluginAsyncTypebox {
  return async (app) => {
    app.post(
      '/suggestions',
      {
        config: { rateLimit: perUser(SUGGESTIONS_LIMIT.max, SUGGESTIONS_LIMIT.minutes) },
        schema: {
          tags: ['links'],
          operationId: 'suggestLinkDetails',
          summary:
            'Suggest a title, a free go-link slug and tags for a new link; nothing is stored',
          description:
            'From the configured AI model when the instance and the person have it on and the hourly budget allows (`source: ai`), ' +
            'otherwise from the page and the person’s own links (`source: local`, with `fallback_reason`). ' +
            'The provider and the page never make it fail: they make it local.',
          body: SuggestLinkBody,
          response: {
            200: LinkSuggestions,
            400: errorResponse(
              'VALIDATION_FAILED: not an http(s) URL, or a destination the outbound rules refuse (details: url)',
            ),
            404: errorResponse('NOT_FOUND: an organization the caller may not create links in'),
            429: errorResponse(
              `RATE_LIMITED: ${SUGGESTIONS_LIMIT.max} per ${SUGGESTIONS_LIMIT.minutes} minutes per person`,
            ),
          },
        },
      },
      async (request) => suggestLinkDetails(deps, callerOf(request), request.body),
    )

    app.post(
      '/suggestions/tags',
      {
        config: {
          rateLimit: perUser(BULK_SUGGESTIONS_LIMIT.max, BULK_SUGGESTIONS_LIMIT.minutes),
        },
        schema: {
          tags: ['links'],
          operationId: 'suggestLinkTags',
          summary: 'Suggest tags for several of your links at once; nothing is stored or applied',
          description:
            `Up to ${MAX_SUGGESTED_LINKS} links, each answered as POST /api/links/suggestions answers for its URL and title ` +
            '(the same cache, hourly model budget and in-flight limit; `source` and `fallback_reason` per link), in the order asked. ' +
            'One link you cannot see is 404 for all. Apply the tags kept with POST /api/links/bulk (`add_tag`).',
          body: SuggestLinkTagsBody,
          response: {
            200: LinkTagSuggestions,
            400: errorResponse(
              `VALIDATION_FAILED: no link_ids, more than ${MAX_SUGGESTED_LINKS}, or one named twice`,
            ),
            404: errorResponse('NOT_FOUND: a link you cannot see'),
            429: errorResponse(
              `RATE_LIMITED: ${BULK_SUGGESTIONS_LIMIT.max} per ${BULK_SUGGESTIONS_LIMIT.minutes} minutes per person`,
            ),
          },
        },
      },
      async (request) => suggestLinkTags(deps, callerOf(request), request.body),
    )
  }
}
