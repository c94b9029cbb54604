/**
 * POST /api/links/fetch-title: the page's <title> through the outbound rules, against a
 * local HTTP server (private networks allowed for this app; a second app with the default rules
 * refuses the same server), with its timeout, size cap, redirects and character sets.
 */
import { createServer, type Server } from 'node:http'
import type { AddressInfo } from 'node:net'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { startTestApp, useTestApp, type TestContext } from '../../../test/helpers/app.js'
import { expectReason } from '../../../test/helpers/expect.js'
import { bearer, createSignedInUser, type SignedIn } from '../../../test/helpers/factories.js'
import { FETCH_TITLE_LIMIT } from './dialog.routes.js'

const t = useTestApp({ env: { RATE_LIMIT_GENERAL: '0', OUTBOUND_ALLOW_PRIVATE_NETWORKS: 'true' } })
let strict: TestContext
let server: Server
let base: string
let user: SignedIn
let strictUser: SignedIn
const served: string[] = []

beforeAll(async () => {
  server = createServer((request, response) => {
    served.push(request.url ?? '')
    switch (request.url) {
      case '/page':
        response.writeHead(200, { 'content-type': 'text/html; charset=utf-8' })
        response.end(
          '<!doctype html><html><head><meta charset="utf-8"><title>\n  Team   handbook &amp; more – Ärger\n</title></head><body>x</body></html>',
        )
        return
      case '/latin1':
        response.writeHead(200, { 'content-type': 'text/html; charset=iso-8859-1' })
        response.end(Buffer.from('<title>Caf\xe9</title>', 'latin1'))
        return
      case '/moved':
        response.writeHead(302, { location: '/page' })
        response.end()
        return
      case '/loop':
        response.writeHead(302, { location: '/loop' })
        response.end()
        return
      case '/no-title':
        response.writeHead(200, { 'content-type': 'text/html' })
        response.end('<html><head></head><body><svg><title>icon</title></svg></body></html>')
        return
      case '/json':
        response.writeHead(200, { 'content-type': 'application/json' })
        response.end('{"title":"not a page"}')
        return
      case '/missing':
        response.writeHead(404, { 'content-type': 'text/html' })
        response.end('<title>Not found</title>')
        return
      case '/huge': {
        // A head that never ends: the read stops at the cap, whatever the server would still send.
        response.writeHead(200, { 'content-type': 'text/html' })
        response.write('<html><head>')
        const filler = `<meta name="x" content="${'a'.repeat(16 * 1024)}">`
        let sent = 0
        const more = () => {
          while (sent < 4 * 1024 * 1024) {
            sent += filler.length
            if (!response.write(filler)) return void response.once('drain', more)
          }
          response.end('<title>Too late</title></head>')
        }
        more()
        return
      }
      case '/slow':
        // Headers, then nothing: the timeout ends the wait.
        response.writeHead(200, { 'content-type': 'text/html' })
        response.write('<html><head>')
        return
      default:
        response.writeHead(404)
        response.end()
    }
  })
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
  base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`
  strict = await startTestApp({
    env: { RATE_LIMIT_GENERAL: '0', OUTBOUND_ALLOW_PRIVATE_NETWORKS: 'false' },
  })
  ;[user, strictUser] = await Promise.all([createSignedInUser(t), createSignedInUser(strict)])
})

afterAll(async () => {
  server.closeAllConnections()
  await new Promise((resolve) => server.close(resolve))
  await strict?.close()
})

const fetchTitle = (url: string, app: TestContext = t, who: SignedIn = user) =>
  app.app.inject({
    method: 'POST',
    url: '/api/links/fetch-title',
    headers: bearer(who.token),
    payload: { url },
  })

describe('fetching a page title', () => {
  it("returns the page's first <title>, entities decoded, white space collapsed, and the URL as it would be stored", async () => {
    const response = await fetchTitle(`${base}/page`)
    expect(response.statusCode).toBe(200)
    expect(response.json()).toEqual({ url: `${base}/page`, title: 'Team handbook & more – Ärger' })
  })

  it('decodes the charset the server names', async () => {
    expect((await fetchTitle(`${base}/latin1`)).json().title).toBe('Café')
  })

  it('follows a redirect (up to 3), and reports a redirect loop as the upstream failing', async () => {
    expect((await fetchTitle(`${base}/moved`)).json().title).toBe('Team handbook & more – Ärger')
    expectReason(await fetchTitle(`${base}/loop`), 502, 'UPSTREAM_FAILED')
  })

  it('is null for a page without a title in its head, and for an answer that is not HTML', async () => {
    expect((await fetchTitle(`${base}/no-title`)).json()).toEqual({
      url: `${base}/no-title`,
      title: null,
    })
    expect((await fetchTitle(`${base}/json`)).json().title).toBeNull()
  })

  it('an error answer is 502 UPSTREAM_FAILED, without the page in the message', async () => {
    const response = await fetchTitle(`${base}/missing`)
    expectReason(response, 502, 'UPSTREAM_FAILED')
    expect(response.body).not.toContain('Not found</title>')
  })

  it('reads at most 256 KiB: a title after that is not read, and the answer comes at once', async () => {
    const started = Date.now()
    const response = await fetchTitle(`${base}/huge`)
    expect(response.json().title).toBeNull()
    console.log(`title read capped after ${Date.now() - started} ms`)
  })

  it('gives up after 5 seconds on a server that stops answering', { timeout: 30_000 }, async () => {
    const started = Date.now()
    const response = await fetchTitle(`${base}/slow`)
    const took = Date.now() - started
    expectReason(response, 502, 'UPSTREAM_FAILED')
    console.log(`slow page given up after ${took} ms`)
    expect(took).toBeGreaterThanOrEqual(4_500)
    expect(took).toBeLessThan(20_000)
  })

  it('goes only where the outbound rules allow: with private networks not allowed, the local server is refused (400 on url) unasked', async () => {
    const before = served.length
    const response = await fetchTitle(`${base}/page`, strict, strictUser)
    expectReason(response, 400, 'VALIDATION_FAILED')
    expect(response.json().details[0].field).toBe('url')
    const byName = await fetchTitle(
      `http://localhost:${new URL(base).port}/page`,
      strict,
      strictUser,
    )
    expectReason(byName, 400, 'VALIDATION_FAILED')
    expect(served.length).toBe(before)
  })

  it('refuses what is not an http(s) URL and templates, and needs a signed-in caller', async () => {
    for (const url of [
      'ftp://example.com/',
      'javascript:alert(1)',
      'https://jira.example/browse/{1}',
    ]) {
      expectReason(await fetchTitle(url), 400, 'VALIDATION_FAILED')
    }
    expect(
      (
        await t.app.inject({
          method: 'POST',
          url: '/api/links/fetch-title',
          payload: { url: `${base}/page` },
        })
      ).statusCode,
    ).toBe(401)
  })

  it(`is limited to ${FETCH_TITLE_LIMIT.max} fetches per ${FETCH_TITLE_LIMIT.minutes} minutes per person, each person on their own`, async () => {
    const [busy, other] = await Promise.all([createSignedInUser(t), createSignedInUser(t)])
    const before = served.length
    const answers = await Promise.all(
      Array.from({ length: FETCH_TITLE_LIMIT.max + 5 }, () =>
        fetchTitle(`${base}/page`, t, busy).then((response) => response.statusCode),
      ),
    )
    expect(answers.filter((status) => status === 200)).toHaveLength(FETCH_TITLE_LIMIT.max)
    expect(answers.filter((status) => status === 429)).toHaveLength(5)
    // A refused call makes the instance fetch nothing.
    expect(served.length - before).toBe(FETCH_TITLE_LIMIT.max)
    expect((await fetchTitle(`${base}/page`, t, other)).statusCode).toBe(200)
  })
})
