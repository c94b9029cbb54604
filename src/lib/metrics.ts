/**
 * The Prometheus registry and instruments of one application instance, built with the other
 * adapters in deps.ts; plugins/metrics.ts records into them and serves them at /api/metrics.
 *
 * Each application has its own registry, so several instances in one process (tests) stay apart.
 */
import { Counter, Histogram, Registry, collectDefaultMetrics } from 'prom-client'

export interface Metrics {
  registry: Registry
  requests: Counter<'method' | 'route' | 'status'>
  duration: Histogram<'method' | 'route' | 'status'>
  errors: Counter<'reason'>
}

export function createMetrics(): Metrics {
  const registry = new Registry()
  collectDefaultMetrics({ register: registry, prefix: 'switchboard_' })
  return {
    registry,
    requests: new Counter({
      name: 'switchboard_http_requests_total',
      help: 'HTTP requests by method, route pattern and status',
      labelNames: ['method', 'route', 'status'],
      registers: [registry],
    }),
    duration: new Histogram({
      name: 'switchboard_http_request_duration_seconds',
      help: 'HTTP request duration by method, route pattern and status',
      labelNames: ['method', 'route', 'status'],
      buckets: [0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5],
      registers: [registry],
    }),
    errors: new Counter({
      name: 'switchboard_errors_total',
      help: 'Error responses by reason (login failures: INVALID_CREDENTIALS; second factor: INVALID_CODE, MFA_PENDING_INVALID; limits: RATE_LIMITED)',
      labelNames: ['reason'],
      registers: [registry],
    }),
  }
}
