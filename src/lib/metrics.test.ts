import { describe, expect, it } from 'vitest'
import { createMetrics } from './metrics.js'

const names = async (processMetrics: boolean) =>
  (await createMetrics({ processMetrics }).registry.getMetricsAsJSON()).map((metric) => metric.name)

describe('createMetrics', () => {
  it("collects the process's figures (CPU, memory, event loop, GC) when they can be scraped", async () => {
    expect(await names(true)).toEqual(
      expect.arrayContaining([
        'switchboard_process_cpu_seconds_total',
        'switchboard_process_resident_memory_bytes',
        'switchboard_nodejs_eventloop_lag_seconds',
        'switchboard_nodejs_gc_duration_seconds',
        'switchboard_http_requests_total',
      ]),
    )
  })

  it('runs no process collector (no GC observer) when nothing can scrape, and still counts requests and errors', async () => {
    expect((await names(false)).sort()).toEqual(
      [
        'switchboard_errors_total',
        'switchboard_http_request_duration_seconds',
        'switchboard_http_requests_total',
      ].sort(),
    )
  })
})
