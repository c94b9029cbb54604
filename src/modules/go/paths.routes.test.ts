/**
 * /go/<slug>/<rest>: path appending and templates as a browser meets them, and templates checked
 * when saved.
 */
import http from 'node:http'
import type { AddressInfo } from 'node:net'
import { beforeAll, describe, expect, it } from 'vitest'
import { useTestApp } from '../../../test/helpers/app.js'
import {
  bearer,
  createSignedInUser,
  type SignedIn,
  type TestUser,
} from '../../../test/helpers/factories.js'
import { createLink } from '../../../test/helpers/links.js'
import { addOrgMember, createOrganization } from '../../../test/helpers/organizations.js'

const t = useTestApp({ env: { RATE_LIMIT_GENERAL: '0' } })

/**
 * Over a real socket with the path exactly as written: inject() parses the URL with WHATWG rules,
 * which would resolve %2e%2e before the app saw it — an attacker's client does not.
 */
async function rawGet(
  user: SignedIn,
  path: string,
): Promise<{
  statusCode: number
  location: string | undefined
  type: string | undefined
  body: string
}> {
  if (t.app.server.address() === null) await t.app.listen({ port: 0, host: '127.0.0.1' })
  const { port } = t.app.server.address() as AddressInfo
  return new Promise((resolve, reject) => {
    const request = http.request(
      { host: '127.0.0.1', port, path, headers: { cookie: `token=${user.token}` } },
      (response) => {
        let body = ''
        response.setEncoding('utf8')
        response.on('data', (chunk: string) => (body += chunk))
        response.on('end', () =>
          resolve({
            statusCode: response.statusCode!,
            location: response.headers.location,
            type: response.headers['content-type'],
            body,
          }),
        )
      },
    )
    request.on('error', reject)
    request.end()
  })
}

const open = (user: SignedIn | null, path: string) =>
  t.app.inject({
    method: 'GET',
    url: path,
    ...(user !== null && { cookies: { token: user.token, csrf_token: user.csrfToken } }),
  })

describe('/go/<slug>/<rest>', () => {
  let alice: TestUser & SignedIn
  beforeAll(async () => {
    alice = await createSignedInUser(t)
    await createLink(t, alice.token, { slug: 'gh', url: 'https://github.com' })
    await createLink(t, alice.token, {
      slug: 'wiki',
      url: 'https://wiki.example/spaces/eng?lang=en#top',
    })
    await createLink(t, alice.token, {
      slug: 'search',
      url: 'https://www.google.com/search?q={query|switchboard}',
    })
    await createLink(t, alice.token, { slug: 'jira', url: 'https://jira.example/browse/{1}-{2|1}' })
    await createLink(t, alice.token, {
      slug: 'code',
      url: 'https://code.example/src/{path|README.md}',
    })
  })

  it('appends the rest of the path and merges the query', async () => {
    const cases: [string, string][] = [
      ['/go/gh/acme/api', 'https://github.com/acme/api'],
      ['/go/GH/acme/api/', 'https://github.com/acme/api/'],
      ['/go/gh/', 'https://github.com/'],
      ['/go/gh', 'https://github.com/'],
      ['/go/gh?tab=repositories', 'https://github.com/?tab=repositories'],
      [
        '/go/wiki/Team Page/caf%C3%A9?x=1',
        'https://wiki.example/spaces/eng/Team%20Page/caf%C3%A9?lang=en&x=1#top',
      ],
      ['/go/wiki/a%2Fb', 'https://wiki.example/spaces/eng/a%2Fb?lang=en#top'],
    ]
    for (const [path, location] of cases) {
      const response = await open(alice, path)
      expect(response.statusCode, path).toBe(302)
      expect(response.headers.location, path).toBe(location)
    }
  })

  it('fills templates: {query}, {1}/{2} and {path}, with their defaults', async () => {
    const cases: [string, string][] = [
      ['/go/search/go links/x', 'https://www.google.com/search?q=go%20links%2Fx'],
      ['/go/search', 'https://www.google.com/search?q=switchboard'],
      ['/go/jira/ENG/42', 'https://jira.example/browse/ENG-42'],
      ['/go/jira/ENG', 'https://jira.example/browse/ENG-1'],
      ['/go/code/lib/a b.ts?ignored=1', 'https://code.example/src/lib/a%20b.ts'],
      ['/go/code', 'https://code.example/src/README.md'],
    ]
    for (const [path, location] of cases) {
      const response = await open(alice, path)
      expect(response.statusCode, path).toBe(302)
      expect(response.headers.location, path).toBe(location)
    }
  })

  it('refuses dot segments however they are encoded, and bad encoding, with a page and no redirect', async () => {
    // A literal `..` never reaches the link: browsers resolve it, and the router answers what is
    // left.
    const literal = await open(alice, '/go/wiki/..')
    expect(literal.statusCode).toBeGreaterThanOrEqual(400)
    expect(literal.headers.location).toBeUndefined()
    for (const path of [
      '/go/wiki/%2e%2e/admin',
      '/go/wiki/%2E./x',
      '/go/wiki/..%2f..%2fadmin',
      '/go/wiki/..%5cadmin',
      '/go/code/%2e%2e',
    ]) {
      const response = await rawGet(alice, path)
      expect(response.statusCode, path).toBe(400)
      expect(response.location, path).toBeUndefined()
      expect(response.type, `${path} ${response.body}`).toBe('text/html; charset=utf-8')
      expect(response.body).toMatch(/cannot open this address/)
    }
    // Malformed percent-encoding is the router's own 400 (the envelope), before any link is looked
    // at.
    const malformed = await rawGet(alice, '/go/wiki/%zz')
    expect(malformed.statusCode).toBe(400)
    expect(malformed.location).toBeUndefined()
    expect(JSON.parse(malformed.body).reason).toBe('VALIDATION_FAILED')
  })

  it('sends a visitor who is not signed in to the login page with the whole path and query to come back to', async () => {
    const response = await open(null, '/go/gh/acme/api?tab=1')
    expect(response.statusCode).toBe(302)
    expect(response.headers.location).toBe(
      `http://switchboard.test/login?return_to=${encodeURIComponent('/go/gh/acme/api?tab=1')}`,
    )
  })

  it('answers the miss page for an unknown slug with a rest', async () => {
    const response = await open(alice, '/go/nothing-here/a/b')
    expect(response.statusCode).toBe(404)
    expect(response.body).toContain('go/nothing-here does not exist')
  })

  it('expands every candidate in the chooser, and the remembered choice opens the same address', async () => {
    const user = await createSignedInUser(t)
    const owner = await createSignedInUser(t)
    const org = await createOrganization(t, owner.token, 'Docs')
    await addOrgMember(t, owner.token, org.id, user, 'member')
    await createLink(t, user.token, { slug: 'docs', url: 'https://mine.example/docs' })
    const shared = await createLink(t, owner.token, {
      slug: 'docs',
      url: 'https://team.example/{path}',
      organization_id: org.id,
    })
    const chooser = await open(user, '/go/docs/a/b?x=1')
    expect(chooser.statusCode).toBe(200)
    expect(chooser.body).toContain('href="https://mine.example/docs/a/b?x=1"')
    expect(chooser.body).toContain('href="https://team.example/a/b"')
    // The page is /go/docs/a/b: the form climbs back to /go/ and carries what followed the slug.
    expect(chooser.body).toContain('action="../../docs/preference"')
    expect(chooser.body).toContain('name="to" value="/a/b?x=1"')
    const chosen = await t.app.inject({
      method: 'POST',
      url: '/go/docs/preference',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      payload: new URLSearchParams({
        csrf_token: user.csrfToken,
        link_id: shared.id,
        to: '/a/b?x=1',
      }).toString(),
      cookies: { token: user.token, csrf_token: user.csrfToken },
    })
    expect(chosen.statusCode).toBe(303)
    expect(chosen.headers.location).toBe('https://team.example/a/b')
    expect((await open(user, '/go/docs/c')).headers.location).toBe('https://team.example/c')
  })
})

describe('templates when a link is saved', () => {
  it('stores a template normalised with its placeholders, and refuses bad ones with VALIDATION_FAILED on url', async () => {
    const user = await createSignedInUser(t)
    const created = await createLink(t, user.token, {
      url: 'HTTPS://Example.COM/a b/{path|x}?q={query}',
    })
    expect(created.url).toBe('https://example.com/a%20b/{path|x}?q={query}')
    for (const url of [
      'https://{1}.example.com/',
      'https://example.com{path}',
      'https://example.com/{path:raw}',
      'https://example.com/{path|../up}',
    ]) {
      const response = await t.app.inject({
        method: 'POST',
        url: '/api/links',
        headers: bearer(user.token),
        payload: { url },
      })
      expect(response.statusCode, url).toBe(400)
      expect(response.json()).toMatchObject({
        reason: 'VALIDATION_FAILED',
        details: [{ field: 'url' }],
      })
    }
    const edited = await t.app.inject({
      method: 'PATCH',
      url: `/api/links/${created.id}`,
      headers: bearer(user.token),
      payload: { url: 'https://example.com/{0}' },
    })
    expect(edited.statusCode).toBe(400)
    expect(edited.json().details[0].message).toMatch(/unknown placeholder \{0\}/)
  })
})
