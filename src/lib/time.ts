/** The source of "now", injected so expiry rules can be tested without waiting. */
export interface Clock {
  now(): Date
}

export const systemClock: Clock = { now: () => new Date() }

export function addSeconds(date: Date, seconds: number): Date {
  return new Date(date.getTime() + seconds * 1000)
}

/** A stored timestamp (ISO 8601 text) as epoch milliseconds; null stays null. */
export function epochMs(timestamp: string | null): number | null {
  return timestamp === null ? null : Date.parse(timestamp)
}
