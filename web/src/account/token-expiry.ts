/**
 * When a token's expiry deserves a warning: within a week, and only once most of its lifetime has
 * passed — a 7-day token is not "expiring soon" on its first day.
 */
const WEEK_MS = 7 * 86_400_000

export function expiresSoon(
  token: { created_at: string; expires_at: string | null },
  now: number,
): boolean {
  if (token.expires_at === null) return false
  const end = Date.parse(token.expires_at)
  const left = end - now
  const lifetime = end - Date.parse(token.created_at)
  return left < WEEK_MS && left < lifetime / 4
}
