/**
 * Requests to servers an administrator configured (AI base_url, OIDC issuers, the SMTP host).
 * Two rules hold for every such connection:
 *
 * - where it may go: public unicast addresses; private ranges (RFC 1918, unique-local,
 *   carrier-grade NAT) and loopback only when the operator allows them
 *   (OUTBOUND_ALLOW_PRIVATE_NETWORKS) — except loopback for a client whose policy says
 *   `allowLoopback` (SMTP: a self-hosted instance usually mails through a relay on this machine,
 *   and loopback reaches nothing but it); never link-local, cloud metadata, unspecified, multicast
 *   or other reserved addresses. The check runs on the addresses a name resolves to, at connection
 *   time (a name that re-resolves to something else — DNS rebinding — is checked again), and on
 *   address literals before any connection.
 * - how much it may answer: bodies are read up to a byte cap, and the read stops there.
 */
import { lookup as dnsLookup, type LookupAddress } from 'node:dns'
import { createRequire } from 'node:module'
import { isIP } from 'node:net'
import ipaddr from 'ipaddr.js'
import type * as Undici from 'undici'
import type { Dispatcher } from 'undici'

// undici (≈4 MiB of heap once loaded) is loaded by the first outbound request, not at start-up: an
// instance without AI or OIDC configured never needs it
// (docs/decisions/0002-start-up-footprint.md).
const require = createRequire(import.meta.url)
let undici: typeof Undici | undefined
const loadUndici = (): typeof Undici => (undici ??= require('undici') as typeof Undici)

export class OutboundRefusedError extends Error {
  constructor(message: string) {
    super(message)
    this.name = 'OutboundRefusedError'
  }
}

export class ResponseTooLargeError extends Error {
  constructor(readonly limitBytes: number) {
    super(`the answer is larger than ${limitBytes} bytes`)
    this.name = 'ResponseTooLargeError'
  }
}

export interface OutboundPolicy {
  /** Private ranges and loopback allowed (an operator setting; the default is false). */
  allowPrivateNetworks: boolean
  /**
   * Loopback allowed even when private networks are not: only for SMTP, whose relay on
   * this machine is the usual set-up. Loopback reaches this host's own services, not the network.
   */
  allowLoopback?: boolean
}

/** Metadata services that live in ranges otherwise allowed as private (AWS IPv6, Alibaba Cloud). */
const METADATA_ADDRESSES = new Set(['fd00:ec2::254', '100.100.100.200'])
const PRIVATE_RANGES = new Set(['private', 'uniqueLocal', 'carrierGradeNat', 'loopback'])

/** Why `address` may not be connected to under `policy`, or null when it may. */
export function addressProblem(address: string, policy: OutboundPolicy): string | null {
  if (!ipaddr.isValid(address)) return 'is not an IP address'
  let parsed = ipaddr.parse(address)
  if (parsed.kind() === 'ipv6' && (parsed as ipaddr.IPv6).isIPv4MappedAddress())
    parsed = (parsed as ipaddr.IPv6).toIPv4Address()
  const normalized = parsed.toString()
  if (METADATA_ADDRESSES.has(normalized)) return 'is a cloud metadata address'
  const range = parsed.range()
  if (range === 'unicast') return null
  if (range === 'loopback' && policy.allowLoopback === true) return null
  if (PRIVATE_RANGES.has(range)) {
    return policy.allowPrivateNetworks
      ? null
      : 'is a private or loopback address (allowed only with OUTBOUND_ALLOW_PRIVATE_NETWORKS=true)'
  }
  if (range === 'linkLocal') return 'is a link-local address (cloud metadata lives there)'
  return `is a ${range} address`
}

/**
 * Whether a host is this machine's loopback by its name or literal (for "plain text only on
 * loopback" rules).
 */
export function isLoopbackHost(host: string): boolean {
  const bare = host.replace(/^\[|\]$/g, '')
  if (bare.toLowerCase() === 'localhost') return true
  if (!ipaddr.isValid(bare)) return false
  let parsed = ipaddr.parse(bare)
  if (parsed.kind() === 'ipv6' && (parsed as ipaddr.IPv6).isIPv4MappedAddress())
    parsed = (parsed as ipaddr.IPv6).toIPv4Address()
  return parsed.range() === 'loopback'
}

/**
 * A host literal (IP, or bracketed IPv6) is checked before connecting; names are checked when
 * resolved.
 */
export function hostLiteralProblem(host: string, policy: OutboundPolicy): string | null {
  const bare = host.replace(/^\[|\]$/g, '')
  return isIP(bare) === 0 ? null : addressProblem(bare, policy)
}

/**
 * Resolves `host` and returns the addresses to connect to, refusing when any of them is not
 * allowed.
 */
export async function resolveAllowed(host: string, policy: OutboundPolicy): Promise<string[]> {
  const bare = host.replace(/^\[|\]$/g, '')
  const addresses =
    isIP(bare) !== 0
      ? [bare]
      : await new Promise<string[]>((resolve, reject) =>
          dnsLookup(bare, { all: true }, (error, found) =>
            error ? reject(error) : resolve(found.map((a) => a.address)),
          ),
        )
  for (const address of addresses) {
    const problem = addressProblem(address, policy)
    if (problem !== null) throw new OutboundRefusedError(`the destination ${problem}`)
  }
  return addresses
}

type LookupCallback = (
  error: NodeJS.ErrnoException | null,
  address: string | LookupAddress[],
  family?: number,
) => void

/** A dns.lookup for sockets that fails the connection when a resolved address is not allowed. */
function guardedLookup(policy: OutboundPolicy) {
  return (hostname: string, options: { all?: boolean }, callback: LookupCallback): void => {
    dnsLookup(hostname, { ...options, all: true }, (error, found) => {
      if (error) return callback(error, [])
      for (const { address } of found) {
        const problem = addressProblem(address, policy)
        if (problem !== null)
          return callback(
            Object.assign(new OutboundRefusedError(`the destination ${problem}`), {
              code: 'EOUTBOUNDREFUSED',
            }),
            [],
          )
      }
      if (options.all) return callback(null, found)
      const first = found[0]!
      return callback(null, first.address, first.family)
    })
  }
}

/** An undici dispatcher whose connections go only where the policy allows. */
export function guardedDispatcher(policy: OutboundPolicy): Dispatcher {
  return new (loadUndici().Agent)({ connect: { lookup: guardedLookup(policy) } })
}

/**
 * Reads a response body up to `limitBytes`, cancelling the stream as soon as it goes beyond: memory
 * stays bounded whatever the server sends (a declared Content-Length over the cap is refused
 * unread).
 */
/**
 * What readCapped needs of a response: undici's and the global Response both fit (their type
 * packages differ).
 */
interface StreamingResponse {
  headers: { get(name: string): string | null }
  body: {
    cancel(): Promise<void>
    getReader(): { read(): Promise<{ done: boolean; value?: Uint8Array }>; cancel(): Promise<void> }
  } | null
}

export async function readCapped(response: StreamingResponse, limitBytes: number): Promise<Buffer> {
  const declared = Number(response.headers.get('content-length'))
  if (Number.isFinite(declared) && declared > limitBytes) {
    await response.body?.cancel().catch(() => undefined)
    throw new ResponseTooLargeError(limitBytes)
  }
  if (response.body === null) return Buffer.alloc(0)
  const reader = response.body.getReader()
  const chunks: Uint8Array[] = []
  let size = 0
  for (;;) {
    const { done, value } = await reader.read()
    if (done || value === undefined) break
    size += value.byteLength
    if (size > limitBytes) {
      await reader.cancel().catch(() => undefined)
      throw new ResponseTooLargeError(limitBytes)
    }
    chunks.push(value)
  }
  return Buffer.concat(chunks)
}

export interface OutboundFetchOptions {
  policy: OutboundPolicy
  /** The largest body read from any answer. */
  maxResponseBytes: number
}

/**
 * A fetch for admin-configured servers: the destination guarded (address literals at once, names
 * when resolved) and the answer buffered up to the cap — what it returns is a complete Response.
 */
export function createOutboundFetch(
  options: OutboundFetchOptions,
): (input: string | URL, init?: RequestInit) => Promise<Response> {
  let dispatcher: Dispatcher | undefined
  return async (input, init = {}) => {
    const url = new URL(String(input))
    const literal = hostLiteralProblem(url.hostname, options.policy)
    if (literal !== null) throw new OutboundRefusedError(`the destination ${literal}`)
    // Never followed: a redirect could name an address literal the guard above has not seen.
    dispatcher ??= guardedDispatcher(options.policy)
    const response = await loadUndici().fetch(url, {
      ...(init as object),
      redirect: 'manual',
      dispatcher,
    })
    const body = await readCapped(response, options.maxResponseBytes)
    const nullBody = [101, 204, 205, 304].includes(response.status)
    return new Response(nullBody ? null : new Uint8Array(body), {
      status: response.status,
      statusText: response.statusText,
      headers: response.headers as unknown as Headers,
    })
  }
}

/**
 * One connection pool per policy for outboundGet (a pool per request would leave sockets behind).
 */
const getDispatchers = new Map<string, Dispatcher>()

/**
 * One GET to a URL a person typed (a link's page title), unbuffered so the caller reads
 * only the start of the body: the destination guarded like createOutboundFetch's, redirects
 * followed by hand up to `maxRedirects`, each hop's host literal checked before connecting and its
 * names when resolved. The caller cancels or reads the body (readCapped, or its own reader).
 */
export async function outboundGet(
  input: string,
  options: {
    policy: OutboundPolicy
    signal: AbortSignal
    maxRedirects: number
    headers?: Record<string, string>
  },
): Promise<{ url: URL; response: Undici.Response }> {
  const key = `${options.policy.allowPrivateNetworks}:${options.policy.allowLoopback === true}`
  let dispatcher = getDispatchers.get(key)
  if (dispatcher === undefined)
    getDispatchers.set(key, (dispatcher = guardedDispatcher(options.policy)))
  let url = new URL(input)
  for (let hop = 0; ; hop++) {
    if (url.protocol !== 'http:' && url.protocol !== 'https:')
      throw new OutboundRefusedError('the destination is not an http(s) URL')
    const literal = hostLiteralProblem(url.hostname, options.policy)
    if (literal !== null) throw new OutboundRefusedError(`the destination ${literal}`)
    const response = await loadUndici().fetch(url, {
      redirect: 'manual',
      dispatcher,
      signal: options.signal,
      headers: options.headers ?? {},
    })
    const location = response.headers.get('location')
    if (
      response.status >= 300 &&
      response.status < 400 &&
      location !== null &&
      hop < options.maxRedirects
    ) {
      await response.body?.cancel().catch(() => undefined)
      url = new URL(location, url)
      continue
    }
    return { url, response }
  }
}
