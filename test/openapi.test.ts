/** The OpenAPI document is generated from the routes: every route, every status, the envelope. */
import { describe, expect, it } from 'vitest'
import { useTestApp } from './helpers/app.js'

const t = useTestApp()

interface Operation {
  responses: Record<string, { description?: string; content?: Record<string, { schema: unknown }> }>
  security?: unknown[]
}

// eslint-disable-next-line @typescript-eslint/no-explicit-any -- the generated document's components, walked generically by the tests
async function documentOf(): Promise<{ paths: Record<string, Record<string, Operation>>; components: any; openapi: string }> {
  const response = await t.app.inject({ method: 'GET', url: '/api/openapi.json' })
  expect(response.statusCode).toBe(200)
  return response.json()
}

describe('GET /api/openapi.json', () => {
  it('is OpenAPI 3.1 with the error envelope as a component', async () => {
    const doc = await documentOf()
    expect(doc.openapi).toBe('3.1.0')
    const envelope = doc.components.schemas.Error
    expect(envelope.required).toEqual(expect.arrayContaining(['error', 'message', 'code', 'reason']))
    expect(Object.keys(envelope.properties)).toEqual(expect.arrayContaining(['details', 'retryAfter']))
    expect(doc.components.schemas.User).toBeTruthy()
  })

  it('documents every API route with its declared and shared error statuses', async () => {
    const doc = await documentOf()
    const expected: Array<[string, string, string[]]> = [
      ['get', '/api/health', ['200', '500']],
      ['get', '/api/health/ready', ['200', '503', '500']],
      ['get', '/api/auth/setup', ['200', '500']],
      ['post', '/api/auth/setup', ['201', '400', '409', '413', '415', '500']],
      ['post', '/api/auth/login', ['200', '400', '401', '413', '415', '429', '500']],
      ['post', '/api/auth/logout', ['204', '401', '403', '500']],
      ['get', '/api/auth/csrf', ['200', '401', '403', '500']],
      ['get', '/api/users/me', ['200', '401', '500']],
      ['patch', '/api/users/me', ['200', '400', '401', '403', '413', '415', '500']],
      ['delete', '/api/users/me', ['204', '400', '401', '403', '409', '429', '500']],
      ['post', '/api/users/me/password', ['204', '400', '401', '403', '429', '500']],
      ['get', '/api/users/me/sessions', ['200', '400', '401', '500']],
      ['delete', '/api/users/me/sessions/{id}', ['204', '400', '401', '403', '404', '500']],
    ]
    for (const [method, path, statuses] of expected) {
      const operation = doc.paths[path]?.[method]
      expect(operation, `${method.toUpperCase()} ${path}`).toBeTruthy()
      expect(Object.keys(operation!.responses)).toEqual(expect.arrayContaining(statuses))
      for (const [status, response] of Object.entries(operation!.responses)) {
        if (Number(status) >= 400) {
          expect(JSON.stringify(response.content), `${method} ${path} ${status}`).toContain('#/components/schemas/Error')
        }
      }
    }
  })

  it('covers every route the application serves under /api', async () => {
    const doc = await documentOf()
    const documented = new Set(
      Object.entries(doc.paths).flatMap(([path, ops]) => Object.keys(ops).map((m) => `${m.toUpperCase()} ${path}`)),
    )
    const served = t.app.routeTable.entries
      .filter((r) => r.url.startsWith('/api/') && !r.url.startsWith('/api/docs') && r.url !== '/api/openapi.json' && r.method !== 'HEAD')
      .map((r) => `${r.method} ${r.url.replace(/:(\w+)/g, '{$1}')}`)
    expect(served.length).toBeGreaterThan(10)
    for (const route of served) expect(documented, route).toContain(route)
  })

  it('marks public routes as needing no credentials and the others as bearer or cookie', async () => {
    const doc = await documentOf()
    expect(doc.paths['/api/auth/login']!.post!.security).toEqual([])
    expect(doc.paths['/api/users/me']!.get!.security).toEqual([{ bearerAuth: [] }, { cookieAuth: [] }])
  })
})

describe('GET /api/docs', () => {
  it('serves the interactive explorer', async () => {
    const response = await t.app.inject({ method: 'GET', url: '/api/docs/' })
    expect(response.statusCode).toBe(200)
    expect(response.headers['content-type']).toMatch(/text\/html/)
  })
})
