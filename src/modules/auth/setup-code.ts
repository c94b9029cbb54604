/**
 * First-run setup from a non-loopback address needs a setup code, so that
 * whoever reaches a new instance first cannot claim it. The code is derived from the server secret
 * (HMAC), so every instance sharing the secrets prints and accepts the same one; it is printed on
 * the terminal (stderr, as plain text) at start while no user exists — never into the JSON log,
 * which log shippers collect — and `switchboard setup-code` prints it on demand.
 * It is useless once setup has happened.
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
 * Headers that reverse proxies in common use add: any of them means the request came through one.
 */
const PROXY_HEADERS = new Set(['forwarded', 'x-real-ip', 'via'])

function carriesProxyHeader(headers: Record<string, unknown>): boolean {
  for (const name of Object.keys(headers)) {
    if (name.startsWith('x-forwarded-') || PROXY_HEADERS.has(name)) return true
  }
  return false
}

/**
 * Setup from the machine itself works without the code: the TCP peer is a loopback address, no
 * proxy is configured (TRUST_PROXY off) and the request carries none of the proxy headers in common
 * use. A reverse proxy on the same host makes every remote client a loopback peer;
 * nginx's plain `proxy_pass` adds no header at all, which is why a configured proxy alone is enough
 * to require the code. A client can forge headers but never the peer address, so forging one only
 * ever makes the check stricter.
 */
export function isLoopbackRequest(
  peerAddress: string | undefined,
  headers: Record<string, unknown>,
  trustProxy: unknown,
): boolean {
  if (peerAddress === undefined || trustProxy !== false || carriesProxyHeader(headers)) return false
  const address = peerAddress.startsWith('::ffff:') ? peerAddress.slice(7) : peerAddress
  if (net.isIPv4(address)) return address.startsWith('127.')
  return address === '::1'
}

/** The lines the terminal shows while no user exists. */
export function setupCodeNotice(code: string): string {
  return (
    `\nswitchboard: no user exists yet. Finish setup from this machine, or from elsewhere with\n` +
    `this setup code (the console's setup page asks for it; the API takes it as setup_code):\n\n    ${code}\n\n`
  )
}

/**
 * Called at start: while no user exists, the setup code goes to the terminal (stderr) and the JSON
 * log says only where to find it. Log shippers collect the JSON log; a secret there would outlive
 * the setup in every aggregator that indexed it.
 */
export async function announceSetupCode(
  deps: Deps,
  terminal: { write(text: string): unknown },
): Promise<void> {
  if (await anyUserExists(deps.db)) return
  terminal.write(setupCodeNotice(setupCodeFor(deps)))
  deps.logger.info(
    'no user exists yet: finish setup from this machine, or with the setup code printed on the terminal (stderr) at start or by `switchboard setup-code`',
  )
}
