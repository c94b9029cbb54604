/**
 * /api/links: what the link dialog asks before saving — a page's title, where a go-link would lead,
 * the teams it may be shared with. None stores anything.
 */
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox'
import type { Deps } from '../../deps.js'
import { callerOf } from '../../identity/hook.js'
import { errorResponse } from '../../plugins/openapi.js'
import { perUser } from '../../plugins/rate-limit.js'
import { previewGoLink } from './preview.js'
import { tags } from './route-responses.js'
import {
  FetchTitleBody,
  FetchedTitle,
  GoPreview,
  GoPreviewQuery,
  ShareableTeamList,
} from './schemas.js'
import { listShareableTeams } from './shares.service.js'
import { fetchLinkTitle, TITLE_READ_BYTES, TITLE_TIMEOUT_MS } from './title.js'

/** A person pastes a URL or two a minute; a script making the instance fetch pages is cut off. */
export const FETCH_TITLE_LIMIT = { max: 60, minutes: 15 }

export function linkDialogRoutes(deps: Deps): FastifyPluginAsyncTypebox {
  return async (app) => {
    app.post(
      '/fetch-title',
      {
        // Each call makes the instance fetch a page: bounded per person.
        config: { rateLimit: perUser(FETCH_TITLE_LIMIT.max, FETCH_TITLE_LIMIT.minutes) },
        schema: {
          tags,
          operationId: 'fetchLinkTitle',
          summary:
            "Fetch the page at a URL and return its title (for the link dialog's suggestion); nothing is stored",
          description:
            `Through the instance's outbound rules (public addresses only unless OUTBOUND_ALLOW_PRIVATE_NETWORKS; every redirect hop checked, at most 3), ` +
            `within ${TITLE_TIMEOUT_MS / 1000} seconds, reading at most ${TITLE_READ_BYTES / 1024} KiB of an HTML answer.`,
          body: FetchTitleBody,
          response: {
            200: FetchedTitle,
            400: errorResponse(
              'VALIDATION_FAILED: not an http(s) URL, a template, or a destination the outbound rules refuse (details: url)',
            ),
            429: errorResponse(
              `RATE_LIMITED: ${FETCH_TITLE_LIMIT.max} fetches per ${FETCH_TITLE_LIMIT.minutes} minutes per person`,
            ),
            502: errorResponse(
              'UPSTREAM_FAILED: the page could not be reached, answered an error, or took too long',
            ),
          },
        },
      },
      async (request) => fetchLinkTitle(deps, request.body),
    )

    app.get(
      '/go-preview',
      {
        schema: {
          tags,
          operationId: 'previewGoLink',
          summary:
            'Where go/<slug>/<path>?<query> would lead for a destination as typed (URL or template)',
          querystring: GoPreviewQuery,
          response: { 200: GoPreview },
        },
      },
      async (request) => previewGoLink(request.query),
    )

    app.get(
      '/shareable-teams',
      {
        schema: {
          tags,
          operationId: 'listShareableTeams',
          summary:
            'The teams you may share links and collections with: yours (an administrator: every team)',
          response: { 200: ShareableTeamList },
        },
      },
      async (request) => listShareableTeams(deps, callerOf(request)),
    )
  }
}
