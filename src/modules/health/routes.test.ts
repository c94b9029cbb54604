import { describe, expect, it } from 'vitest'
import { startTestApp } from '../../../test/helpers/app.js'
import { useTestApp } from '../../../test/helpers/app.js'

const t = useTestApp()

describe('health', () => {
  it('GET /api/health answers without credentials', async () => {
    const response = await t.app.inject({ method: 'GET', url: '/api/health' })
    expect(response.statusCode).toBe(200)
    expect(response.json()).toEqual({ status: 'ok' })
  })

  it('GET /api/health/ready answers 200 while the database answers', async () => {
    const response = await t.app.inject({ method: 'GET', url: '/api/health/ready' })
    expect(response.statusCode).toBe(200)
    expect(response.json()).toEqual({ status: 'ok' })
  })

  it('GET /api/health/ready answers 503 with the envelope when the database is gone', async () => {
    const broken = await startTestApp()
    await broken.deps.database.close()
    try {
      const started = Date.now()
      const response = await broken.app.inject({ method: 'GET', url: '/api/health/ready' })
      expect(Date.now() - started).toBeLessThan(3000)
      expect(response.statusCode).toBe(503)
      expect(response.json()).toMatchObject({
        code: 503,
        reason: 'SERVICE_UNAVAILABLE',
        error: 'Service Unavailable',
      })
    } finally {
      await broken.app.close()
      await broken.database.drop()
    }
  })
})
