/**
 * GET /go/{slug} and its form, POST /go/{slug}/preference: pages for browsers outside /api. They
 * are public as far as the authentication hook goes (a missing sign-in is a redirect to the login
 * page, not a 401) and resolve the caller themselves; they are left out of the OpenAPI document,
 * which describes the JSON API.
 */
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox'
import type { FastifyReply, FastifyRequest } from 'fastify'
import type { Deps } from '../../deps.js'
import { optionalCaller } from '../../identity/hook.js'
import { rememberGoChoice, type BrowserAnswer } from './browser.js'
import { createClickCounter, type ClickCounter } from './clicks.js'
import { serveGo } from './redirect.js'

const FORM_LIMIT_BYTES = 4 * 1024

function send(reply: FastifyReply, answer: BrowserAnswer, clicks: ClickCounter): FastifyReply {
  if ('redirect' in answer) {
    // In memory only: the redirect does not wait for the count.
    if (answer.linkId !== undefined) clicks.count(answer.linkId)
    return reply.redirect(answer.redirect, answer.status)
  }
  return reply
    .code(answer.page.status)
    .header('content-security-policy', answer.page.csp)
    .type('text/html; charset=utf-8')
    .send(answer.page.html)
}

export function goBrowserRoutes(deps: Deps): FastifyPluginAsyncTypebox {
  return async (app) => {
    const clicks = createClickCounter(deps)
    // app.close() — the clean shutdown path — runs this once in-flight requests are done.
    app.addHook('onClose', async () => clicks.close())
    // Only the chooser's form is accepted here: application/x-www-form-urlencoded, and nothing
    // else.
    app.removeAllContentTypeParsers()
    app.addContentTypeParser(
      'application/x-www-form-urlencoded',
      { parseAs: 'string', bodyLimit: FORM_LIMIT_BYTES },
      (_request, body, done) => {
        done(null, Object.fromEntries(new URLSearchParams(body as string)))
      },
    )

    // No params schema: any slug that is not one answers the 404 page, not a JSON 400.
    const options = { config: { auth: 'public' as const }, schema: { hide: true } }
    const slugOf = (params: unknown) => (params as { slug: string }).slug

    const open = async (request: FastifyRequest, reply: FastifyReply) =>
      send(reply, await serveGo(deps, request), clicks)
    app.get('/:slug', options, open)
    // Path appending and templates: everything after the slug is the link's to fill in.
    app.get('/:slug/*', options, open)

    app.post('/:slug/preference', options, async (request, reply) =>
      send(
        reply,
        await rememberGoChoice(
          deps,
          await optionalCaller(deps, request),
          slugOf(request.params),
          (request.body ?? {}) as Record<string, string>,
          request.headers['accept-language'],
        ),
        clicks,
      ),
    )
  }
}
