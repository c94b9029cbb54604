/**
 * Prometheus figures of link suggestions on the instance's registry (GET /api/metrics): model
 * calls by outcome, their latency, and local answers by fallback reason.
 */
import { Counter, Histogram, type Registry } from 'prom-client'

export interface SuggestionMetrics {
  modelCalls: Counter<'outcome'>
  modelSeconds: Histogram
  fallbacks: Counter<'reason'>
}

const byRegistry = new WeakMap<Registry, SuggestionMetrics>()

export function suggestionMetrics(registry: Registry): SuggestionMetrics {
  let metrics = byRegistry.get(registry)
  if (metrics === undefined) {
    metrics = {
      modelCalls: new Counter({
        name: 'switchboard_link_suggestion_model_calls_total',
        help: 'Model calls for link suggestions, by outcome (ok or the fallback reason)',
        labelNames: ['outcome'],
        registers: [registry],
      }),
      modelSeconds: new Histogram({
        name: 'switchboard_link_suggestion_model_seconds',
        help: 'The duration of model calls for link suggestions, retries included',
        buckets: [0.25, 0.5, 1, 2, 4, 8, 16],
        registers: [registry],
      }),
      fallbacks: new Counter({
        name: 'switchboard_link_suggestion_fallbacks_total',
        help: 'Local link suggestions given instead of the model, by reason',
        labelNames: ['reason'],
        registers: [registry],
      }),
    }
    byRegistry.set(registry, metrics)
  }
  return metrics
}
