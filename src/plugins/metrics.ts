/**
 * Prometheus metrics at /api/metrics (text exposition format): request counts and latencies by
 * route pattern and status, errors by reason (login failures are INVALID_CREDENTIALS, second-factor
 * failures INVALID_CODE and MFA_PENDING_INVALID, rejections by a limit RATE_LIMITED), and the
 * process's own figures (memory, CPU, event-loop lag). With METRICS_TOKEN set, the endpoint needs
 * `Authorization: Bearer <METRICS_TOKEN>`.
 */
import type { FastifyInstance } from 'fastify'
import { Type } from '@sinclair/typebox'
import { AppError } from '../errors.js'
import { safeEqual } from '../lib/crypto.js'
import type { Metrics } from '../lib/metrics.js'
import { errorResponse } from './openapi.js'

declare module 'fastify' {
  interface FastifyReply {
    /** Set by the error handler: the reason of the error this reply carries, for the metrics. */
    errorReason: string | null
  }
}

export function installMetrics(app: FastifyInstance, options: { metrics: Metrics; token?: string }): void {
  const { metrics } = options
  app.decorateReply('errorReason', null)

  app.addHook('onResponse', (request, reply, done) => {
    // The route pattern, never the concrete URL: ids in paths would explode the label set.
    const route = request.is404 ? 'unmatched' : (request.routeOptions.url ?? 'unmatched')
    const labels = { method: request.method, route, status: String(reply.statusCode) }
    metrics.requests.inc(labels)
    metrics.duration.observe(labels, reply.elapsedTime / 1000)
    if (reply.errorReason !== null) metrics.errors.inc({ reason: reply.errorReason })
    done()
  })

  app.get(
    '/api/metrics',
    {
      config: { auth: 'public', rateLimit: false },
      schema: {
        tags: ['operations'],
        summary: 'Prometheus metrics (text exposition format)',
        security: options.token === undefined ? [] : [{ bearerAuth: [] }],
        response: { 200: Type.String({ description: 'text/plain; version=0.0.4' }), 401: errorResponse('UNAUTHORIZED: METRICS_TOKEN is set and was not sent') },
      },
    },
    async (request, reply) => {
      if (options.token !== undefined && !safeEqual(request.headers.authorization ?? '', `Bearer ${options.token}`)) {
        throw new AppError('UNAUTHORIZED')
      }
      const text = await metrics.registry.metrics()
      return reply.type(metrics.registry.contentType).send(text)
    },
  )
}
