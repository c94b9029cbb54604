/**
 * The API explorer at /api/docs, served by Swagger UI loaded on the first visit
 * (plugins/openapi.ts).
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { startTestApp, type TestContext } from './helpers/app.js'

let t: TestContext
beforeAll(async () => {
  t = await startTestApp()
})
afterAll(async () => t.close())

describe('GET /api/docs (explorer)', () => {
  it('serves the page, its assets with their own CSP, and the application document', async () => {
    // Concurrent first visits share one explorer.
    const [page, again] = await Promise.all([
      t.app.inject({ url: '/api/docs/' }),
      t.app.inject({ url: '/api/docs' }),
    ])
    expect(page.statusCode).toBe(200)
    expect(again.statusCode).toBe(200)
    expect(page.headers['content-type']).toMatch(/^text\/html/)
    expect(page.headers['content-security-policy']).toContain("default-src 'self'")
    expect(page.headers['x-request-id']).toBeDefined()
    expect(page.body).toContain('swagger-ui-bundle.js')

    const css = await t.app.inject({ url: '/api/docs/static/swagger-ui.css' })
    expect(css.statusCode).toBe(200)
    expect(css.headers['content-type']).toMatch(/^text\/css/)

    const document = await t.app.inject({ url: '/api/docs/json' })
    expect(document.statusCode).toBe(200)
    expect(document.json()).toEqual(
      JSON.parse((await t.app.inject({ url: '/api/openapi.json' })).body),
    )
  })

  it('answers an unknown path under it with the error envelope, and nothing outside its folder', async () => {
    for (const url of [
      '/api/docs/nope',
      '/api/docs/static/../../package.json',
      '/api/docs/static/%2e%2e/%2e%2e/package.json',
    ]) {
      const response = await t.app.inject({ url })
      expect(response.statusCode, url).toBe(404)
      expect(response.json(), url).toMatchObject({ reason: 'NOT_FOUND', code: 404 })
    }
  })
})
