/**
 * The Prometheus registry and instruments of one application instance, built with the other
 * adapters in deps.ts; plugins/metrics.ts records into them and serves them at /api/metrics.
 *
 * Each application has its own registry, so several instances in one process (tests) stay apart.
 *
 * The per-request series (count and latency by method, route pattern and status) are kept here as
 * plain numbers and handed to the registry only when it is scraped: prom-client's own labelled
 * Counter and Histogram hash their label object on every increment, a measurable share of a hot
 * route's CPU for figures read once every few seconds (docs/decisions/0013-request-path.md).
 *
 * The process's own figures (prom-client's default set: CPU, memory, event-loop lag, GC) are
 * collected only when something can read them, i.e. METRICS_TOKEN or METRICS_PORT is configured
 * (both are read once at start). They cost even unread: the GC histogram's observer runs after
 * every garbage collection, and Node builds a performance entry for it each time
 * (docs/decisions/0013-request-path.md).
 */
import { Counter, Registry, collectDefaultMetrics, type Metric } from 'prom-client'

/** One (method, route, status) series: a request count and a latency histogram. */
export interface RequestSeries {
  observe(seconds: number): void
}

export interface RequestMetrics {
  series(method: string, route: string, status: number): RequestSeries
}

export interface Metrics {
  registry: Registry
  requests: RequestMetrics
  errors: Counter<'reason'>
}

const DURATION_BUCKETS = [0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5]

type Labels = { method: string; route: string; status: string }

class Series implements RequestSeries {
  count = 0
  sum = 0
  /** Observations per bucket (not cumulative); the last slot is above the largest bound (+Inf). */
  readonly buckets = new Array<number>(DURATION_BUCKETS.length + 1).fill(0)
  constructor(readonly labels: Labels) {}

  observe(seconds: number): void {
    this.count++
    this.sum += seconds
    let i = 0
    while (i < DURATION_BUCKETS.length && seconds > DURATION_BUCKETS[i]!) i++
    this.buckets[i]!++
  }
}

interface ScrapedValue {
  labels: Record<string, string | number>
  value: number
  metricName?: string
}

/**
 * A metric whose values are computed when the registry is scraped. The registry reads `name` and
 * `type` and calls `get()`; its types name prom-client's own classes, hence the one cast.
 */
function scrapedMetric(
  name: string,
  help: string,
  type: 'counter' | 'histogram',
  values: () => ScrapedValue[],
): Metric {
  const metric = {
    name,
    type,
    get: async () => ({ name, help, type, aggregator: 'sum', values: values() }),
  }
  return metric as unknown as Metric
}

function createRequestMetrics(registry: Registry): RequestMetrics {
  const all = new Map<string, Series>()
  registry.registerMetric(
    scrapedMetric(
      'switchboard_http_requests_total',
      'HTTP requests by method, route pattern and status',
      'counter',
      () => [...all.values()].map((s) => ({ labels: s.labels, value: s.count })),
    ),
  )
  const durationName = 'switchboard_http_request_duration_seconds'
  registry.registerMetric(
    scrapedMetric(
      durationName,
      'HTTP request duration by method, route pattern and status',
      'histogram',
      () =>
        [...all.values()].flatMap((s) => {
          let cumulative = 0
          const finite = DURATION_BUCKETS.map((le, i) => {
            cumulative += s.buckets[i]!
            return {
              metricName: `${durationName}_bucket`,
              labels: { le, ...s.labels },
              value: cumulative,
            }
          })
          return [
            ...finite,
            {
              metricName: `${durationName}_bucket`,
              labels: { le: '+Inf', ...s.labels },
              value: s.count,
            },
            { metricName: `${durationName}_sum`, labels: s.labels, value: s.sum },
            { metricName: `${durationName}_count`, labels: s.labels, value: s.count },
          ]
        }),
    ),
  )
  return {
    series(method, route, status) {
      const key = `${method} ${route} ${status}`
      let series = all.get(key)
      if (series === undefined)
        all.set(key, (series = new Series({ method, route, status: String(status) })))
      return series
    },
  }
}

export function createMetrics(options: { processMetrics: boolean }): Metrics {
  const registry = new Registry()
  if (options.processMetrics) collectDefaultMetrics({ register: registry, prefix: 'switchboard_' })
  return {
    registry,
    requests: createRequestMetrics(registry),
    errors: new Counter({
      name: 'switchboard_errors_total',
      help: 'Error responses by reason (login failures: INVALID_CREDENTIALS; second factor: INVALID_CODE, MFA_PENDING_INVALID; limits: RATE_LIMITED)',
      labelNames: ['reason'],
      registers: [registry],
    }),
  }
}
