/**
 * The short go host over raw HTTP: `Host: go` is answered with a redirect under PUBLIC_URL and
 * nothing else — no API, no console, no cookie read or set, no HSTS — while the instance's own
 * host keeps serving as before.
 */
import http from 'node:http'
import type { AddressInfo } from 'node:net'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { startTestApp, type TestContext } from '../../../test/helpers/app.js'
import { createSignedInUser, createUser } from '../../../test/helpers/factories.js'
import { parseConfig, ConfigError } from '../../config.js'
import { shortHostAnswer } from './short-host.js'

const PUBLIC_URL = 'https://switchboard.test'

interface RawAnswer {
  status: number
  headers: http.IncomingHttpHeaders
  body: string
}

function rawRequest(
  port: number,
  options: { method?: string; path: string; headers: Record<string, string> },
): Promise<RawAnswer> {
  return new Promise((resolve, reject) => {
    const request = http.request(
      { host: '127.0.0.1', port, method: options.method ?? 'GET', path: options.path },
      (response) => {
        let body = ''
        response.setEncoding('utf8')
        response.on('data', (chunk: string) => (body += chunk))
        response.on('end', () =>
          resolve({ status: response.statusCode ?? 0, headers: response.headers, body }),
        )
      },
    )
    for (const [name, value] of Object.entries(options.headers)) request.setHeader(name, value)
    request.on('error', reject)
    request.end()
  })
}

async function listen(context: TestContext): Promise<number> {
  await context.app.listen({ host: '127.0.0.1', port: 0 })
  return (context.app.server.address() as AddressInfo).port
}

describe('shortHostAnswer: (method, request target) → Location', () => {
  const cases: [string, string, ReturnType<typeof shortHostAnswer>][] = [
    ['GET', '/', { status: 302, location: `${PUBLIC_URL}/links` }],
    ['GET', '/wiki', { status: 302, location: `${PUBLIC_URL}/go/wiki` }],
    ['GET', '/wiki/', { status: 302, location: `${PUBLIC_URL}/go/wiki/` }],
    [
      'GET',
      '/Wiki/a/b?x=1&y=%20',
      { status: 302, location: `${PUBLIC_URL}/go/Wiki/a/b?x=1&y=%20` },
    ],
    ['HEAD', '/wiki', { status: 302, location: `${PUBLIC_URL}/go/wiki` }],
    ['POST', '/wiki', { status: 308, location: `${PUBLIC_URL}/go/wiki` }],
    ['PUT', '/wiki/x', { status: 308, location: `${PUBLIC_URL}/go/wiki/x` }],
    ['GET', '//evil.example', { status: 302, location: `${PUBLIC_URL}/go//evil.example` }],
    ['GET', '/api/users/me', { status: 302, location: `${PUBLIC_URL}/go/api/users/me` }],
    ['GET', '/?q=1', { status: 302, location: `${PUBLIC_URL}/links` }],
    ['GET', '/../admin', { status: 404 }],
    ['GET', '/wiki/%2e%2E/x', { status: 404 }],
    ['GET', '/wiki/./x', { status: 404 }],
    ['GET', '/wiki\\..\\admin', { status: 404 }],
    ['GET', 'http://evil.example/wiki', { status: 404 }],
    ['GET', '*', { status: 404 }],
  ]
  it.each(cases)('%s %s', (method, target, expected) => {
    expect(shortHostAnswer(method, target, PUBLIC_URL)).toEqual(expected)
  })

  it('never leaves PUBLIC_URL, whatever the target', () => {
    const targets = ['//a', '/%2f%2fa', '/@evil.example', '/x?//y', '/x#y', '/\t', '/%0d%0a']
    for (const target of targets) {
      const answer = shortHostAnswer('GET', target, `${PUBLIC_URL}/sb`)
      if (answer.status === 404) continue
      expect(answer.location.startsWith(`${PUBLIC_URL}/sb/go/`)).toBe(true)
      expect(new URL(answer.location).origin).toBe(PUBLIC_URL)
    }
  })
})

describe('GO_HOSTS configuration', () => {
  const base = { JWT_SECRET: 'x'.repeat(43), PUBLIC_URL }
  it('keeps host names, lower case, without duplicates', () => {
    const config = parseConfig({ ...base, GO_HOSTS: ' go, Go.Corp.Example ,go,' })
    expect(config.goHosts).toEqual(['go', 'go.corp.example'])
    expect(parseConfig(base).goHosts).toEqual([])
  })
  it.each(['http://go', 'go:80', 'go/x', 'switchboard.test', 'bad_name'])('refuses %s', (hosts) => {
    expect(() => parseConfig({ ...base, GO_HOSTS: hosts })).toThrow(ConfigError)
  })
})

describe('a request to the short host', () => {
  let direct: TestContext
  let port: number
  let token: string

  beforeAll(async () => {
    direct = await startTestApp({ env: { PUBLIC_URL, GO_HOSTS: 'go,go.corp.example' } })
    port = await listen(direct)
    token = (await createSignedInUser(direct, { email: 'ada@example.com' })).token
  })
  afterAll(async () => direct.close())

  it('is a redirect under PUBLIC_URL, without cookies or HSTS', async () => {
    const answer = await rawRequest(port, {
      path: '/wiki/page?q=1',
      headers: { host: 'go', cookie: `token=${token}; csrf_token=x` },
    })
    expect(answer.status).toBe(302)
    expect(answer.headers.location).toBe(`${PUBLIC_URL}/go/wiki/page?q=1`)
    expect(answer.headers['set-cookie']).toBeUndefined()
    expect(answer.headers['strict-transport-security']).toBeUndefined()
    expect(answer.body).toBe('')
  })

  it('also for a dotted short name and a port, and 308 for other methods', async () => {
    const post = await rawRequest(port, {
      method: 'POST',
      path: '/wiki',
      headers: { host: 'GO.corp.example:8080', 'content-type': 'application/json' },
    })
    expect(post.status).toBe(308)
    expect(post.headers.location).toBe(`${PUBLIC_URL}/go/wiki`)
  })

  it('serves neither the API nor the console there', async () => {
    const cookie = `token=${token}`
    const me = await rawRequest(port, {
      path: '/api/users/me',
      headers: { host: 'go', cookie, authorization: `Bearer ${token}` },
    })
    expect(me.status).toBe(302)
    expect(me.headers.location).toBe(`${PUBLIC_URL}/go/api/users/me`)
    expect(me.body).not.toContain('ada@example.com')
    const root = await rawRequest(port, { path: '/', headers: { host: 'go', cookie } })
    expect(root.headers.location).toBe(`${PUBLIC_URL}/links`)
    expect(root.headers['content-type']).toBeUndefined()
    const climb = await rawRequest(port, { path: '/x/../api/users/me', headers: { host: 'go' } })
    expect(climb.status).toBe(404)
    expect(climb.headers.location).toBeUndefined()
  })

  it('leaves the instance host as it was: the API answers, HSTS is sent', async () => {
    const health = await rawRequest(port, {
      path: '/api/health',
      headers: { host: 'switchboard.test' },
    })
    expect(health.status).toBe(200)
    expect(health.headers['strict-transport-security']).toBe('max-age=31536000')
  })

  it('ignores X-Forwarded-Host without TRUST_PROXY', async () => {
    const answer = await rawRequest(port, {
      path: '/api/health',
      headers: { host: 'switchboard.test', 'x-forwarded-host': 'go' },
    })
    expect(answer.status).toBe(200)
  })
})

describe('behind a trusted proxy', () => {
  let proxied: TestContext
  let port: number
  beforeAll(async () => {
    proxied = await startTestApp({ env: { PUBLIC_URL, GO_HOSTS: 'go', TRUST_PROXY: '1' } })
    port = await listen(proxied)
  })
  afterAll(async () => proxied.close())

  it('counts the forwarded host, as everywhere else', async () => {
    const answer = await rawRequest(port, {
      path: '/wiki',
      headers: { host: 'switchboard.test', 'x-forwarded-host': 'go', 'x-forwarded-proto': 'http' },
    })
    expect(answer.body).toBe('')
    expect(answer.status).toBe(302)
    expect(answer.headers.location).toBe(`${PUBLIC_URL}/go/wiki`)
    const own = await rawRequest(port, {
      path: '/api/health',
      headers: { host: 'go', 'x-forwarded-host': 'switchboard.test' },
    })
    expect(own.status).toBe(200)
  })

  it("takes the client's address from the nearest forwarded hop (TRUST_PROXY=1)", async () => {
    const user = await createUser(proxied, { password: 'a-long-passphrase-1' })
    const signIn = await proxied.app.inject({
      method: 'POST',
      url: '/api/auth/login',
      payload: { email: user.email, password: 'a-long-passphrase-1' },
      headers: { 'x-forwarded-for': '198.51.100.7, 203.0.113.9' },
    })
    expect(signIn.statusCode).toBe(200)
    const sessions = await proxied.app.inject({
      method: 'GET',
      url: '/api/users/me/sessions',
      headers: { authorization: `Bearer ${signIn.json().token}` },
    })
    expect(sessions.json().items.map((session: { ip: string }) => session.ip)).toEqual([
      '203.0.113.9',
    ])
  })
})

describe('GET /opensearch.xml', () => {
  let context: TestContext
  beforeAll(async () => {
    context = await startTestApp({ env: { PUBLIC_URL: `${PUBLIC_URL}/sb` } })
  })
  afterAll(async () => context.close())

  it('describes a search that opens /go/{searchTerms}', async () => {
    const response = await context.app.inject({ method: 'GET', url: '/opensearch.xml' })
    expect(response.statusCode).toBe(200)
    expect(response.headers['content-type']).toBe(
      'application/opensearchdescription+xml; charset=utf-8',
    )
    expect(response.body).toContain('<ShortName>go</ShortName>')
    expect(response.body).toContain(
      `<Url type="text/html" method="get" template="${PUBLIC_URL}/sb/go/{searchTerms}"/>`,
    )
    expect(response.body).toContain('xmlns="http://a9.com/-/spec/opensearch/1.1/"')
  })
})
