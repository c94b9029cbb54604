/**
 * The console served by the API process (dist/web, built by `npm test` before the suite): hashed
 * assets cached for good and precompressed, index.html never cached and under a strict CSP, and
 * the history fallback limited to console paths so /api/*, /go/* and anything else keep their
 * JSON answers.
 */
import fs from 'node:fs'
import path from 'node:path'
import { describe, expect, it } from 'vitest'
import { useTestApp } from '../../test/helpers/app.js'
import { CONSOLE_CSP, DEFAULT_CONSOLE_DIR } from './console.js'

const t = useTestApp()

function builtAsset(extension: string): string {
  const assets = path.join(DEFAULT_CONSOLE_DIR, 'assets')
  if (!fs.existsSync(assets))
    throw new Error(`${assets} is missing: run "npm run build" (npm test does it first)`)
  const name = fs.readdirSync(assets).find((file) => file.endsWith(extension))
  if (name === undefined) throw new Error(`no ${extension} asset in ${assets}`)
  return name
}

describe('console pages', () => {
  it.each([
    '/',
    '/login',
    '/login/mfa',
    '/setup',
    '/account',
    '/account/security',
    '/account/tokens',
    '/verify-email?token=x',
    '/invitations/accept?token=x',
    '/forgot-password',
    '/reset-password?token=x',
    '/account/no-such-page',
  ])('serves index.html at %s, never cached, with the console CSP', async (url) => {
    const response = await t.app.inject({ method: 'GET', url })
    expect(response.statusCode).toBe(200)
    expect(response.headers['content-type']).toMatch(/^text\/html/)
    expect(response.headers['cache-control']).toBe('no-store')
    expect(response.headers['content-security-policy']).toBe(CONSOLE_CSP)
    expect(response.headers['x-frame-options']).toBe('DENY')
    expect(response.body).toContain('<div id="root">')
  })

  it('allows only same-origin scripts, no inline script, and no framing', async () => {
    const response = await t.app.inject({ method: 'GET', url: '/login' })
    const csp = String(response.headers['content-security-policy'])
    expect(csp).toMatch(/(^|; )script-src 'self'(;|$)/)
    expect(csp).not.toMatch(/unsafe-inline|unsafe-eval/)
    expect(csp).toContain("frame-ancestors 'none'")
    // The page itself holds no inline script: every <script> has a src on this origin.
    const scripts = [...response.body.matchAll(/<script\b([^>]*)>([\s\S]*?)<\/script>/g)]
    expect(scripts.length).toBeGreaterThan(0)
    for (const [, attributes, content] of scripts) {
      expect(attributes).toMatch(/src="\/assets\//)
      expect(content!.trim()).toBe('')
    }
  })
})

describe('console assets', () => {
  it('serves a hashed script with a year-long immutable cache', async () => {
    const name = builtAsset('.js')
    const response = await t.app.inject({ method: 'GET', url: `/assets/${name}` })
    expect(response.statusCode).toBe(200)
    expect(response.headers['content-type']).toMatch(/javascript/)
    expect(response.headers['cache-control']).toBe('public, max-age=31536000, immutable')
  })

  it.each([
    ['br', 'br'],
    ['gzip', 'gzip'],
    ['gzip, deflate, br', 'br'],
  ])('sends the precompressed file for Accept-Encoding: %s', async (accept, encoding) => {
    const name = builtAsset('.css')
    const response = await t.app.inject({
      method: 'GET',
      url: `/assets/${name}`,
      headers: { 'accept-encoding': accept },
    })
    expect(response.statusCode).toBe(200)
    expect(response.headers['content-encoding']).toBe(encoding)
    const file = path.join(
      DEFAULT_CONSOLE_DIR,
      'assets',
      `${name}.${encoding === 'br' ? 'br' : 'gz'}`,
    )
    expect(response.rawPayload.equals(fs.readFileSync(file))).toBe(true)
    expect(response.headers['cache-control']).toBe('public, max-age=31536000, immutable')
  })

  it('answers an unknown asset with the JSON 404, not the page', async () => {
    const response = await t.app.inject({ method: 'GET', url: '/assets/nope-123.js' })
    expect(response.statusCode).toBe(404)
    expect(response.headers['content-type']).toMatch(/^application\/json/)
    expect(response.json()).toMatchObject({ reason: 'NOT_FOUND' })
  })

  it('does not serve files outside the assets directory', async () => {
    for (const url of [
      '/assets/../index.html',
      '/assets/%2e%2e/index.html',
      '/assets/..%2f..%2fpackage.json',
    ]) {
      const response = await t.app.inject({ method: 'GET', url })
      expect(response.body, url).not.toContain('"name": "switchboard"')
      if (response.statusCode === 200)
        expect(response.headers['content-type'], url).toMatch(/^text\/html/)
    }
  })
})

describe('history fallback is for console paths only', () => {
  it.each(['/api/x', '/api/users/nope', '/favicon.ico', '/robots.txt', '/loginx', '/accounts'])(
    '%s keeps the JSON 404',
    async (url) => {
      const response = await t.app.inject({ method: 'GET', url })
      expect(response.statusCode).toBe(404)
      expect(response.headers['content-type']).toMatch(/^application\/json/)
      expect(response.json()).toMatchObject({ reason: 'NOT_FOUND' })
      expect(response.headers['content-security-policy']).toBe(
        "default-src 'none'; frame-ancestors 'none'",
      )
    },
  )

  // A browser's navigation to a mistyped address shows the console's not-found page.
  it.each(['/accounts', '/loginx', '/no/such/page'])(
    'a browser asking for a page at %s gets the console with status 404',
    async (url) => {
      const response = await t.app.inject({
        method: 'GET',
        url,
        headers: { accept: 'text/html,application/xhtml+xml,*/*;q=0.8' },
      })
      expect(response.statusCode).toBe(404)
      expect(response.headers['content-type']).toMatch(/^text\/html/)
      expect(response.headers['content-security-policy']).toBe(CONSOLE_CSP)
      expect(response.body).toContain('<div id="root">')
    },
  )

  it.each(['/api/x', '/api/users/nope', '/assets/nope.js', '/.well-known/nope'])(
    'a browser asking for a page at %s still gets JSON',
    async (url) => {
      const response = await t.app.inject({ method: 'GET', url, headers: { accept: 'text/html' } })
      expect(response.statusCode).toBe(404)
      expect(response.headers['content-type']).toMatch(/^application\/(scim\+)?json/)
    },
  )

  it('leaves API answers unchanged', async () => {
    const response = await t.app.inject({ method: 'GET', url: '/api/auth/setup' })
    expect(response.statusCode).toBe(200)
    expect(response.json()).toEqual(expect.objectContaining({ initialized: false }))
    expect(response.headers['cache-control']).toBe('no-store')
  })

  it('refuses other methods on console paths with 405', async () => {
    const response = await t.app.inject({ method: 'POST', url: '/login' })
    expect(response.statusCode).toBe(405)
    expect(response.json()).toMatchObject({ reason: 'METHOD_NOT_ALLOWED' })
  })
})
