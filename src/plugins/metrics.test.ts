import { describe, expect, it } from 'vitest'
import { useTestApp } from '../../test/helpers/app.js'
import { bearer, createSignedInUser } from '../../test/helpers/factories.js'

describe('GET /api/metrics', () => {
  const t = useTestApp({ env: { METRICS_TOKEN: 'scrape-secret-0123456789' } })

  it('exposes request counts and latencies by route pattern, and errors by reason, in Prometheus format', async () => {
    const user = await createSignedInUser(t)
    await t.app.inject({ method: 'GET', url: '/api/users/me', headers: bearer(user.token) })
    await t.app.inject({
      method: 'GET',
      url: `/api/users/me/sessions/${'x'.repeat(20)}`,
      headers: bearer(user.token),
    })
    await t.app.inject({
      method: 'POST',
      url: '/api/auth/login',
      payload: { email: user.email, password: 'wrong wrong wrong' },
    })
    await t.app.inject({ method: 'GET', url: '/no/such/thing' })

    const response = await t.app.inject({
      method: 'GET',
      url: '/api/metrics',
      headers: bearer('scrape-secret-0123456789'),
    })
    expect(response.statusCode).toBe(200)
    expect(response.headers['content-type']).toMatch(/^text\/plain; version=0\.0\.4/)
    const text = response.body
    expect(text).toMatch(
      /switchboard_http_requests_total\{method="GET",route="\/api\/users\/me",status="200"\} 1/,
    )
    expect(text).toMatch(
      /switchboard_http_request_duration_seconds_bucket\{le="[0-9.]+",method="GET",route="\/api\/users\/me",status="200"\}/,
    )
    expect(text).toMatch(
      /switchboard_http_request_duration_seconds_bucket\{le="\+Inf",method="GET",route="\/api\/users\/me",status="200"\} 1/,
    )
    expect(text).toMatch(
      /switchboard_http_request_duration_seconds_count\{method="GET",route="\/api\/users\/me",status="200"\} 1/,
    )
    expect(text).toMatch(
      /switchboard_http_request_duration_seconds_sum\{method="GET",route="\/api\/users\/me",status="200"\} [0-9.e-]+/,
    )
    expect(text).toContain('# TYPE switchboard_http_requests_total counter')
    expect(text).toContain('# TYPE switchboard_http_request_duration_seconds histogram')
    // Buckets are cumulative: the largest finite bound counts the request (it took under 5 s).
    expect(text).toMatch(
      /switchboard_http_request_duration_seconds_bucket\{le="5",method="GET",route="\/api\/users\/me",status="200"\} 1/,
    )
    expect(text).toMatch(/switchboard_errors_total\{reason="INVALID_CREDENTIALS"\} 1/)
    expect(text).toMatch(/route="unmatched",status="404"/)
    expect(text).not.toContain('xxxxxxxxxxxx') // concrete ids never become labels
    expect(text).toContain('switchboard_process_resident_memory_bytes')
  })
})

describe('with METRICS_TOKEN', () => {
  const t = useTestApp({ env: { METRICS_TOKEN: 'scrape-secret-0123456789' } })

  it('needs the bearer secret', async () => {
    expect((await t.app.inject({ method: 'GET', url: '/api/metrics' })).json()).toMatchObject({
      code: 401,
      reason: 'UNAUTHORIZED',
    })
    expect(
      (
        await t.app.inject({
          method: 'GET',
          url: '/api/metrics',
          headers: bearer('wrong-secret-0123456789'),
        })
      ).statusCode,
    ).toBe(401)
    const ok = await t.app.inject({
      method: 'GET',
      url: '/api/metrics',
      headers: bearer('scrape-secret-0123456789'),
    })
    expect(ok.statusCode).toBe(200)
    expect(ok.body).toContain('switchboard_http_requests_total')
  })
})
