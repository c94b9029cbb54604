/**
 * Prometheus metrics at /api/metrics (text exposition format): request counts and latencies by
 * route pattern and status, errors by reason (login failures are INVALID_CREDENTIALS, second-factor
 * failures INVALID_CODE and MFA_PENDING_INVALID, rejections by a limit RATE_LIMITED), and the
 * process's own figures (memory, CPU, event-loop lag).
 *
 * Nothing is public by default: on the public port /api/metrics answers only
 * with `Authorization: Bearer <METRICS_TOKEN>`, and 401 while METRICS_TOKEN is unset. METRICS_PORT
 * serves the same text at GET /metrics on a second listener bound to 127.0.0.1, for a scraper on
 * the same host (or a sidecar) — without a token.
 *
 * Each application has its own registry, so several instances in one process (tests) stay apart.
 */
import type http from 'node:http'
import type { AddressInfo } from 'node:net'
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify'
import { Type } from '@sinclair/typebox'
import { AppError } from '../errors.js'
import { safeEqual } from '../lib/crypto.js'
import type { Metrics, RequestSeries } from '../lib/metrics.js'
import { errorResponse } from './openapi.js'

// Not `import http from 'node:http'`, which loads Node's bundled undici at start (see errors.ts).
const { createServer } = process.getBuiltinModule('node:http')

declare module 'fastify' {
  interface FastifyInstance {
    /** The loopback metrics listener's address once listening (METRICS_PORT), else null. */
    metricsAddress(): AddressInfo | null
  }
  interface FastifyReply {
    /** Set by the error handler: the reason of the error this reply carries, for the metrics. */
    errorReason: string | null
  }
}

/** The loopback listener of METRICS_PORT: GET /metrics and nothing else. */
function startLoopbackListener(metrics: Metrics, port: number): Promise<http.Server> {
  const server = createServer((request, response) => {
    if (
      request.method !== 'GET' ||
      (request.url !== '/metrics' && request.url !== '/api/metrics')
    ) {
      response.writeHead(404, { 'content-type': 'text/plain' }).end('not found\n')
      return
    }
    metrics.registry.metrics().then(
      (text) => response.writeHead(200, { 'content-type': metrics.registry.contentType }).end(text),
      () => response.writeHead(500, { 'content-type': 'text/plain' }).end('metrics unavailable\n'),
    )
  })
  server.requestTimeout = 10_000
  return new Promise((resolve, reject) => {
    server.once('error', reject)
    server.listen(port, '127.0.0.1', () => resolve(server))
  })
}

export function installMetrics(
  app: FastifyInstance,
  options: { metrics: Metrics; token?: string; port?: number },
): void {
  const { metrics } = options
  let listener: http.Server | null = null
  app.decorate(
    'metricsAddress',
    () => (listener?.address() as AddressInfo | null | undefined) ?? null,
  )
  if (options.port !== undefined) {
    const port = options.port
    app.addHook('onReady', async () => {
      listener = await startLoopbackListener(metrics, port)
    })
    app.addHook('onClose', async () => {
      await new Promise<void>((resolve) =>
        listener === null ? resolve() : listener.close(() => resolve()),
      )
    })
  }

  app.get(
    '/api/metrics',
    {
      config: { auth: 'public', rateLimit: false },
      schema: {
        tags: ['operations'],
        summary: 'Prometheus metrics (text exposition format)',
        description:
          'Needs `Authorization: Bearer <METRICS_TOKEN>`; without METRICS_TOKEN configured it always answers 401 (use METRICS_PORT for a loopback listener instead).',
        security: [{ bearerAuth: [] }],
        operationId: 'getMetrics',
        // Never touches the database: the figures live in the process.
        database: false,
        response: {
          200: {
            description: 'The Prometheus text exposition format, version 0.0.4',
            content: { 'text/plain; version=0.0.4': { schema: Type.String() } },
          },
          401: errorResponse('UNAUTHORIZED: the METRICS_TOKEN was not sent, or none is configured'),
        },
      },
    },
    async (request, reply) => {
      if (options.token === undefined) {
        throw new AppError('UNAUTHORIZED', {
          message:
            'Metrics are not served on this port: set METRICS_TOKEN, or METRICS_PORT for a loopback listener.',
        })
      }
      if (!safeEqual(request.headers.authorization ?? '', `Bearer ${options.token}`))
        throw new AppError('UNAUTHORIZED')
      const text = await metrics.registry.metrics()
      return reply.type(metrics.registry.contentType).send(text)
    },
  )
}

/**
 * Records every request in the metrics. Installed before any route is registered (the per-route
 * hooks are added as routes register), so every route is counted.
 */
export function recordRequestMetrics(app: FastifyInstance, metrics: Metrics): void {
  app.decorateReply('errorReason', null)
  // Each route records through its own hook, made when the route is registered: it knows its
  // method and pattern (the route pattern, never the concrete URL — ids in paths would explode the
  // label set) and keeps the series of each status it answered, so a request neither reads the
  // route's options back nor builds a label object (both showed in the CPU profile).
  const recorder = (method: string, route: string) => {
    const byStatus = new Map<number, RequestSeries>()
    return (reply: FastifyReply) => {
      let series = byStatus.get(reply.statusCode)
      if (series === undefined)
        byStatus.set(
          reply.statusCode,
          (series = metrics.requests.series(method, route, reply.statusCode)),
        )
      series.observe(reply.elapsedTime / 1000)
      if (reply.errorReason !== null) metrics.errors.inc({ reason: reply.errorReason })
    }
  }
  app.addHook('onRoute', (route) => {
    const methods = [route.method].flat()
    const recorders = new Map(methods.map((method) => [method, recorder(method, route.url)]))
    const onResponse = (request: FastifyRequest, reply: FastifyReply, done: () => void) => {
      recorders.get(request.method)?.(reply)
      done()
    }
    route.onResponse = [...[route.onResponse ?? []].flat(), onResponse]
  })
  // Requests that matched no route (404, 405) run only the application's own hooks.
  const recordUnmatched = new Map<string, (reply: FastifyReply) => void>()
  app.addHook('onResponse', (request, reply, done) => {
    if (request.is404) {
      let record = recordUnmatched.get(request.method)
      if (record === undefined)
        recordUnmatched.set(request.method, (record = recorder(request.method, 'unmatched')))
      record(reply)
    }
    done()
  })
}
