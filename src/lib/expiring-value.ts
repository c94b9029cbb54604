import type { Clock } from './time.js'

/**
 * One value remembered under a key for a fixed time. Enough for data derived from a single
 * configuration (the AI model list): a new key — the configuration changed — replaces the value.
 */
export class ExpiringValue<V> {
  #entry: { key: string; value: V; expiresAt: number } | null = null

  constructor(
    private readonly clock: Clock,
    private readonly ttlSeconds: number,
  ) {}

  get(key: string): V | undefined {
    const entry = this.#entry
    if (entry === null || entry.key !== key || entry.expiresAt <= this.clock.now().getTime())
      return undefined
    return entry.value
  }

  set(key: string, value: V): void {
    this.#entry = { key, value, expiresAt: this.clock.now().getTime() + this.ttlSeconds * 1000 }
  }
}
