/**
 * The OpenID Connect adapter (openid-client): discovery, the authorization request, and the code
 * exchange with its checks — state, PKCE, and the ID token's issuer, audience, expiry, nonce and
 * signature (docs/API.md#identity-providers). Discovery results (and with them the provider's
 * signing keys) are cached per provider for an hour; a provider whose row changed — on any instance
 * — has a new `version`, so its cached discovery is not used again.
 *
 * Failures come back as OidcProviderError whose message is safe to log: library messages, HTTP
 * statuses and OAuth error codes, never the provider's free text (which may quote what was sent).
 */
import type * as oidc from 'openid-client'
import {
  createOutboundFetch,
  OutboundRefusedError,
  ResponseTooLargeError,
  type OutboundPolicy,
} from '../../lib/outbound.js'
import type { Clock } from '../../lib/time.js'

export interface OidcConnection {
  providerId: string
  /**
   * Changes whenever the provider's settings change: a cached discovery of another version is not
   * used.
   */
  version: string
  issuerUrl: string
  clientId: string
  /** null: a public client, which authenticates to the token endpoint with PKCE alone. */
  clientSecret: string | null
  redirectUri: string
}

export interface AuthorizationRequest {
  scope: string
  state: string
  nonce: string
  /** S256 of the PKCE verifier (RFC 7636 §4.2). */
  codeChallenge: string
}

export interface AuthorizationChecks {
  state: string
  nonce: string
  codeVerifier: string
}

/**
 * What the provider says about the person, from the verified ID token (or, for email, UserInfo).
 */
export interface OidcIdentity {
  sub: string
  email: string | null
  emailVerified: boolean
  name: string | null
  /**
   * The ID token's `amr` (RFC 8176 authentication method references): what the provider checked.
   */
  amr: string[]
}

export interface OidcClient {
  authorizationUrl(connection: OidcConnection, request: AuthorizationRequest): Promise<string>
  /**
   * Verifies the authorization response `callbackUrl`, redeems its code and verifies the ID token.
   */
  completeAuthorization(
    connection: OidcConnection,
    callbackUrl: URL,
    checks: AuthorizationChecks,
  ): Promise<OidcIdentity>
  /** Drops a provider's cached discovery (it was deleted). */
  forget(providerId: string): void
  /**
   * Fetches and checks an issuer's discovery document now (nothing cached), for an administrator
   * about to save it.
   */
  checkIssuer(issuerUrl: string): Promise<IssuerCheck>
}

/** Why an issuer's discovery failed, in words a console can translate; `detail` is safe to show. */
export type IssuerProblem = 'refused' | 'unreachable' | 'timeout' | 'invalid'

export type IssuerCheck =
  | {
      ok: true
      issuer: string
      authorizationEndpoint: string
      tokenEndpoint: string
      jwksUri: string | null
    }
  | { ok: false; problem: IssuerProblem; detail: string }

export class OidcProviderError extends Error {
  constructor(message: string) {
    super(message)
    this.name = 'OidcProviderError'
  }
}

const LOOPBACK_HOSTS = new Set(['127.0.0.1', '[::1]', 'localhost'])

/**
 * Issuers are reached over https. Plain http is accepted only on this machine's loopback
 * interface, where nothing travels over a network — a development convenience
 * (docs/API.md#identity-providers).
 */
export function issuerUrlProblem(text: string): string | null {
  let url: URL
  try {
    url = new URL(text)
  } catch {
    return 'must be an https URL'
  }
  if (
    url.protocol !== 'https:' &&
    !(url.protocol === 'http:' && LOOPBACK_HOSTS.has(url.hostname))
  ) {
    return 'must be an https URL (http only for 127.0.0.1, ::1 or localhost)'
  }
  if (url.username !== '' || url.password !== '') return 'must not contain credentials'
  if (text.includes('?') || text.includes('#')) return 'must not have a query or fragment'
  return null
}

// openid-client is loaded by the first sign-in through a provider, not at start-up
// (docs/decisions/0002-start-up-footprint.md).
type OpenIdClient = typeof oidc
let library: OpenIdClient | undefined
async function openIdClient(): Promise<OpenIdClient> {
  return (library ??= await import('openid-client'))
}

const DEFAULT_OIDC_TIMEOUT_SECONDS = 10
/** Discovery documents, key sets, token and UserInfo answers are a few KiB; 1 MiB is generous. */
export const DEFAULT_OIDC_MAX_RESPONSE_BYTES = 1024 * 1024
const DISCOVERY_TTL_SECONDS = 60 * 60
const OAUTH_ERROR_CODE = /^[\x20-\x21\x23-\x5b\x5d-\x7e]{1,64}$/

/**
 * RFC 6749 §2.3.1 makes Basic mandatory for servers; use it unless the provider lists only POST.
 */
function clientAuthentication(oidc: OpenIdClient, secret: string | null): oidc.ClientAuth {
  if (secret === null) return oidc.None()
  return (as, client, body, headers) => {
    const methods = as.token_endpoint_auth_methods_supported
    const basic =
      methods === undefined ||
      methods.includes('client_secret_basic') ||
      !methods.includes('client_secret_post')
    return (basic ? oidc.ClientSecretBasic(secret) : oidc.ClientSecretPost(secret))(
      as,
      client,
      body,
      headers,
    )
  }
}

/** An OAuth error code (RFC 6749 §5.2 charset), or null for anything else. */
export function oauthErrorCode(value: unknown): string | null {
  return typeof value === 'string' && OAUTH_ERROR_CODE.test(value) ? value : null
}

/** Says what went wrong in words safe for logs; never the provider's error_description. */
function describeFailure(error: unknown): string {
  if (error instanceof OidcProviderError) return error.message
  if (error instanceof ResponseTooLargeError)
    return `the provider's answer is larger than ${error.limitBytes} bytes; it was not read`
  if (error instanceof OutboundRefusedError)
    return `the provider was not contacted: ${error.message}`
  const wrapped = (error as { cause?: unknown })?.cause
  if (wrapped instanceof ResponseTooLargeError || wrapped instanceof OutboundRefusedError)
    return describeFailure(wrapped)
  // Any error of the library's own kinds was thrown after it was loaded.
  const oidc = library
  if (oidc === undefined)
    return `the exchange with the provider failed (${(error as Error | null)?.name ?? 'unknown error'})`
  if (error instanceof oidc.ResponseBodyError || error instanceof oidc.AuthorizationResponseError) {
    const status = error instanceof oidc.ResponseBodyError ? `HTTP ${error.status} ` : ''
    return `the provider answered ${status}(${oauthErrorCode(error.error) ?? 'no error code'})`
  }
  if (error instanceof oidc.WWWAuthenticateChallengeError) {
    const code = error.cause
      .map((challenge) => oauthErrorCode(challenge.parameters.error))
      .find((c) => c !== null)
    return `the provider answered HTTP ${error.status} (${code ?? 'no error code'})`
  }
  const e = error as Error & { code?: unknown; cause?: { code?: unknown } }
  if (e?.name === 'TimeoutError' || e?.code === 'OAUTH_TIMEOUT')
    return 'the provider did not answer in time'
  if (error instanceof oidc.ClientError)
    return `${e.message}${typeof e.code === 'string' ? ` (${e.code})` : ''}`
  if (error instanceof TypeError && typeof e.cause?.code === 'string')
    return `the provider could not be reached (${e.cause.code})`
  return `the exchange with the provider failed (${e?.name ?? 'unknown error'})`
}

/** The kind of a discovery failure (the same causes describeFailure puts in words). */
function issuerProblemOf(error: unknown): IssuerProblem {
  const cause = (error as { cause?: unknown })?.cause
  if (error instanceof OutboundRefusedError || cause instanceof OutboundRefusedError)
    return 'refused'
  const e = error as Error & { code?: unknown; cause?: { code?: unknown } }
  if (e?.name === 'TimeoutError' || e?.code === 'OAUTH_TIMEOUT') return 'timeout'
  // fetch() fails with a TypeError when no connection could be made (refused, unknown name, reset).
  if (error instanceof TypeError) return 'unreachable'
  return 'invalid'
}

function text(value: unknown): string | null {
  return typeof value === 'string' && value !== '' ? value : null
}

/** Some providers send email_verified as the string "true" (e.g. older Amazon Cognito pools). */
function isTrue(value: unknown): boolean {
  return value === true || value === 'true'
}

export function createOidcClient(options: {
  clock: Clock
  policy: OutboundPolicy
  timeoutSeconds?: number
  maxResponseBytes?: number
}): OidcClient {
  const timeout = options.timeoutSeconds ?? DEFAULT_OIDC_TIMEOUT_SECONDS
  // Every request to the provider (discovery, JWKS, token, UserInfo): guarded destination, capped
  // answer.
  const outboundFetch = createOutboundFetch({
    policy: options.policy,
    maxResponseBytes: options.maxResponseBytes ?? DEFAULT_OIDC_MAX_RESPONSE_BYTES,
  })
  const cache = new Map<
    string,
    { version: string; expiresAt: number; configuration: Promise<oidc.Configuration> }
  >()

  async function discover(connection: OidcConnection): Promise<oidc.Configuration> {
    const server = new URL(connection.issuerUrl)
    // issuerUrlProblem() admitted http only for loopback hosts; checked again here, where it
    // matters.
    if (issuerUrlProblem(connection.issuerUrl) !== null)
      throw new OidcProviderError('the issuer URL is not acceptable')
    const oidc = await openIdClient()
    return oidc.discovery(
      server,
      connection.clientId,
      undefined,
      clientAuthentication(oidc, connection.clientSecret),
      {
        timeout,
        // The same function under either Response type (Node's, or the DOM's when web/e2e compiles
        // this file).
        [oidc.customFetch]: outboundFetch as unknown as oidc.CustomFetch,
        execute: [
          // The ID token's signature is checked against the provider's keys even though it came
          // straight from the token endpoint (docs/API.md#identity-providers lists signature among
          // the checks).
          oidc.enableNonRepudiationChecks,
          ...(server.protocol === 'http:' ? [oidc.allowInsecureRequests] : []),
        ],
      },
    )
  }

  /**
   * One discovery per provider version at a time; failures are not kept, so the next try asks
   * again.
   */
  function configurationFor(connection: OidcConnection): Promise<oidc.Configuration> {
    const now = options.clock.now().getTime()
    const cached = cache.get(connection.providerId)
    if (cached !== undefined && cached.version === connection.version && cached.expiresAt > now)
      return cached.configuration
    const entry = {
      version: connection.version,
      expiresAt: now + DISCOVERY_TTL_SECONDS * 1000,
      configuration: discover(connection),
    }
    cache.set(connection.providerId, entry)
    entry.configuration.catch(() => {
      if (cache.get(connection.providerId) === entry) cache.delete(connection.providerId)
    })
    return entry.configuration
  }

  async function withSafeErrors<T>(work: () => Promise<T>): Promise<T> {
    try {
      return await work()
    } catch (error) {
      throw error instanceof OidcProviderError
        ? error
        : new OidcProviderError(describeFailure(error))
    }
  }

  return {
    authorizationUrl(connection, request) {
      return withSafeErrors(async () => {
        const configuration = await configurationFor(connection)
        const oidc = await openIdClient()
        return oidc
          .buildAuthorizationUrl(configuration, {
            redirect_uri: connection.redirectUri,
            scope: request.scope,
            state: request.state,
            nonce: request.nonce,
            code_challenge: request.codeChallenge,
            code_challenge_method: 'S256',
          })
          .toString()
      })
    },

    completeAuthorization(connection, callbackUrl, checks) {
      return withSafeErrors(async () => {
        const configuration = await configurationFor(connection)
        const oidc = await openIdClient()
        const tokens = await oidc.authorizationCodeGrant(configuration, callbackUrl, {
          expectedState: checks.state,
          expectedNonce: checks.nonce,
          pkceCodeVerifier: checks.codeVerifier,
          idTokenExpected: true,
        })
        const claims = tokens.claims()
        if (claims === undefined) throw new OidcProviderError('the provider issued no ID token')
        // Providers that keep the ID token thin (OIDC Core §5.4) give the email through UserInfo;
        // email and email_verified are always taken together, from one source.
        let source: Record<string, unknown> = claims
        if (
          text(claims.email) === null &&
          configuration.serverMetadata().userinfo_endpoint !== undefined
        ) {
          source = await oidc.fetchUserInfo(configuration, tokens.access_token, claims.sub)
        }
        return {
          sub: claims.sub,
          email: text(source.email),
          emailVerified: isTrue(source.email_verified),
          name: text(claims.name) ?? text(source.name),
          amr: Array.isArray(claims.amr)
            ? claims.amr.filter((value): value is string => typeof value === 'string')
            : [],
        }
      })
    },

    forget(providerId) {
      cache.delete(providerId)
    },

    async checkIssuer(issuerUrl) {
      try {
        // openid-client checks that the document names this very issuer (OIDC Discovery §4.3).
        const configuration = await discover({
          providerId: '',
          version: '',
          issuerUrl,
          clientId: 'issuer-check',
          clientSecret: null,
          redirectUri: '',
        })
        const metadata = configuration.serverMetadata()
        if (
          metadata.authorization_endpoint === undefined ||
          metadata.token_endpoint === undefined
        ) {
          return {
            ok: false,
            problem: 'invalid',
            detail: 'the discovery document names no authorization or token endpoint',
          }
        }
        return {
          ok: true,
          issuer: metadata.issuer,
          authorizationEndpoint: metadata.authorization_endpoint,
          tokenEndpoint: metadata.token_endpoint,
          jwksUri: metadata.jwks_uri ?? null,
        }
      } catch (error) {
        // The commonest mistake, a wrong path or realm: say which status came instead of the
        // document.
        const status = (error as { cause?: { status?: unknown } })?.cause?.status
        if (
          (error as { code?: unknown })?.code === 'OAUTH_RESPONSE_IS_NOT_CONFORM' &&
          typeof status === 'number'
        ) {
          return {
            ok: false,
            problem: 'invalid',
            detail: `the issuer answered HTTP ${status} where its discovery document should be`,
          }
        }
        return { ok: false, problem: issuerProblemOf(error), detail: describeFailure(error) }
      }
    },
  }
}
