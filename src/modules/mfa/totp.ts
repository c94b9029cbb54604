/**
 * TOTP (RFC 6238) as docs/API.md#two-factor-authentication fixes it: SHA-1, 6 digits, 30-second
 * steps, a 160-bit secret (32 base32 characters), codes accepted one step either side of now (clock
 * drift, typing time). Generation and checking are otpauth's; this file pins the parameters and
 * exposes the time step a code matched, which the replay protection stores.
 */
import { Secret, TOTP } from 'otpauth'

const PERIOD_SECONDS = 30
const DIGITS = 6
const WINDOW_STEPS = 1

export function newTotpSecret(): string {
  return new Secret({ size: 20 }).base32
}

function totpFor(secret: string): TOTP {
  return new TOTP({
    algorithm: 'SHA1',
    digits: DIGITS,
    period: PERIOD_SECONDS,
    secret: Secret.fromBase32(secret),
  })
}

/** The key URI authenticator apps read (Google Authenticator key URI format). */
export function otpauthUrl(secret: string, issuer: string, account: string): string {
  const label = `${encodeURIComponent(issuer)}:${encodeURIComponent(account)}`
  const issuerParam = encodeURIComponent(issuer)
  return `otpauth://totp/${label}?secret=${secret}&issuer=${issuerParam}&algorithm=SHA1&digits=${DIGITS}&period=${PERIOD_SECONDS}`
}

/** The time step a 6-digit code is valid for at `now` (±1 step), or null when it matches none. */
export function matchTotpStep(secret: string, code: string, now: Date): number | null {
  if (!/^\d{6}$/.test(code)) return null
  const delta = totpFor(secret).validate({
    token: code,
    timestamp: now.getTime(),
    window: WINDOW_STEPS,
  })
  if (delta === null) return null
  return Math.floor(now.getTime() / 1000 / PERIOD_SECONDS) + delta
}
