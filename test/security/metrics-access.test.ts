/**
 * Nothing is served as metrics on the public port by default — /api/metrics
 * answers 401 unless METRICS_TOKEN is set and sent; METRICS_PORT serves them on a separate
 * listener bound to 127.0.0.1.
 */
import { describe, expect, it } from 'vitest'
import { useTestApp } from '../helpers/app.js'
import { expectReason } from '../helpers/expect.js'

describe('metrics without configuration', () => {
  const t = useTestApp()
  it('are not served on the public port: 401, from anywhere, with or without credentials', async () => {
    expectReason(await t.app.inject({ method: 'GET', url: '/api/metrics' }), 401, 'UNAUTHORIZED')
    expectReason(
      await t.app.inject({
        method: 'GET',
        url: '/api/metrics',
        remoteAddress: '127.0.0.1',
        headers: { authorization: 'Bearer ' },
      }),
      401,
      'UNAUTHORIZED',
    )
    expect(t.app.metricsAddress()).toBeNull()
  })

  it('collects no process figures (no GC observer) when nothing can scrape them', async () => {
    const names = (await t.deps.metrics.registry.getMetricsAsJSON()).map((metric) => metric.name)
    expect(names).not.toContain('switchboard_process_resident_memory_bytes')
    expect(names).not.toContain('switchboard_nodejs_gc_duration_seconds')
    expect(names).toContain('switchboard_http_requests_total')
  })
})

describe('metrics with METRICS_PORT', () => {
  const t = useTestApp({ env: { METRICS_PORT: '0' } })
  it('are served on a separate listener bound to loopback, and still not on the public port', async () => {
    const address = t.app.metricsAddress()!
    expect(address.address).toBe('127.0.0.1')
    const response = await fetch(`http://127.0.0.1:${address.port}/metrics`)
    expect(response.status).toBe(200)
    expect(await response.text()).toContain('switchboard_process_resident_memory_bytes')
    expect((await fetch(`http://127.0.0.1:${address.port}/other`)).status).toBe(404)
    expectReason(await t.app.inject({ method: 'GET', url: '/api/metrics' }), 401, 'UNAUTHORIZED')
  })
})
