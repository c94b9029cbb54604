/**
 * First-run setup from a non-loopback address needs a setup code (issue #11 item 17), so that
 * whoever reaches a new instance first cannot claim it. The code is derived from the server secret
 * (HMAC), so every instance sharing the secrets prints and accepts the same one; it is printed to
 * the log at start while no user exists, and is useless once setup has happened.
 */
import net from 'node:net'
import type { Deps } from '../../deps.js'
import { deriveKey, hmacBase64Url, safeEqual } from '../../lib/crypto.js'
import { anyUserExists } from '../users/repo.js'

/** 80 bits as four groups of five letters and digits, easy to copy from a log line. */
export function setupCodeFor(deps: Deps): string {
  const digest = hmacBase64Url(deriveKey(deps.secrets.jwtSecret, 'setup-code'), 'first-run setup')
  const letters = digest
    .replace(/[^A-Za-z0-9]/g, '')
    .toUpperCase()
    .slice(0, 20)
  return letters.match(/.{5}/g)!.join('-')
}

export function setupCodeMatches(deps: Deps, sent: string): boolean {
  const normalize = (code: string) => code.replace(/[\s-]/g, '').toUpperCase()
  return safeEqual(normalize(sent), normalize(setupCodeFor(deps)))
}

/**
 * Setup from the machine itself works as it always did: the TCP peer is a loopback address and no
 * proxy header says the request came from further away (a local reverse proxy adds one; a client
 * can forge one but never the peer address — so TRUST_PROXY is deliberately not consulted here).
 */
export function isLoopbackRequest(peerAddress: string | undefined, headers: Record<string, unknown>): boolean {
  if (peerAddress === undefined || headers['x-forwarded-for'] !== undefined || headers['forwarded'] !== undefined) return false
  const address = peerAddress.startsWith('::ffff:') ? peerAddress.slice(7) : peerAddress
  if (net.isIPv4(address)) return address.startsWith('127.')
  return address === '::1'
}

/** Called at start: while no user exists, the setup code goes to the log for the operator. */
export async function announceSetupCode(deps: Deps): Promise<void> {
  if (await anyUserExists(deps.db)) return
  deps.logger.warn(
    { setup_code: setupCodeFor(deps) },
    'no user exists yet: finish setup from this machine, or send this setup_code with POST /api/auth/setup from elsewhere',
  )
}
