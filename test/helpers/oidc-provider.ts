/**
 * A real OpenID provider (oidc-provider) on 127.0.0.1, in the test process. One confidential client
 * is registered for the app's callback URLs; the test decides who signs in (`loginAs`, one of the
 * `accounts` whose claims it controls) and `authorize()` plays the browser at the provider —
 * following redirects by hand and carrying cookies — through an interaction endpoint that signs
 * that account in and grants consent at once (or declines, when `loginAs` is null).
 *
 * `rewriteIdToken` intercepts the token endpoint's answer, so tests can hand the app an ID token
 * that was altered, signed with another key, or signed properly with wrong claims.
 */
import http from 'node:http'
import type { AddressInfo } from 'node:net'
import { exportJWK, generateKeyPair, SignJWT, type JWK } from 'jose'
import Provider from 'oidc-provider'
import { OIDC_CLIENT_SECRET } from './secret-scan.js'

export const OIDC_CLIENT_ID = 'switchboard-test-client'

export interface TestAccount {
  email?: string
  email_verified?: boolean | string
  name?: string
}

export interface IdTokenParts {
  header: Record<string, unknown>
  claims: Record<string, unknown>
}

export interface OidcProviderStandIn {
  /** http://127.0.0.1:<port> */
  issuer: string
  /** Accounts by sub; tests change the claims at will. */
  accounts: Map<string, TestAccount>
  /** The sub the next interaction signs in; null declines (error=access_denied). */
  loginAs: string | null
  rewriteIdToken: ((token: string) => Promise<string>) | null
  /** Requests the token endpoint received. */
  tokenRequests: number
  /** Requests for the discovery document. */
  discoveryRequests: number
  /**
   * Plays the browser from the authorization URL until the provider sends it away; returns where
   * to.
   */
  authorize(authorizationUrl: string): Promise<URL>
  /** The ID token's header and claims (not verified). */
  decode(token: string): IdTokenParts
  /** Signs header and claims with the provider's own key, or a new one (with the same kid). */
  sign(parts: IdTokenParts, key: 'provider' | 'foreign'): Promise<string>
  close(): Promise<void>
}

export interface OidcProviderOptions {
  redirectUris: string[]
  /** Put the scope claims (email, name) into the ID token; otherwise only UserInfo has them. */
  claimsInIdToken?: boolean
}

function decodePart(part: string | undefined): Record<string, unknown> {
  return JSON.parse(Buffer.from(part ?? '', 'base64url').toString('utf8')) as Record<
    string,
    unknown
  >
}

export async function startOidcProvider(
  options: OidcProviderOptions,
): Promise<OidcProviderStandIn> {
  const { privateKey } = await generateKeyPair('RS256', { extractable: true })
  const signingJwk: JWK = {
    ...(await exportJWK(privateKey)),
    kid: 'test-key',
    alg: 'RS256',
    use: 'sig',
  }
  const foreign = await generateKeyPair('RS256', { extractable: true })

  let handle: (req: http.IncomingMessage, res: http.ServerResponse) => void = (_req, res) =>
    res.end()
  const server = http.createServer((req, res) => handle(req, res))
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
  const issuer = `http://127.0.0.1:${(server.address() as AddressInfo).port}`

  const standIn = {
    issuer,
    accounts: new Map<string, TestAccount>(),
    loginAs: null as string | null,
    rewriteIdToken: null as OidcProviderStandIn['rewriteIdToken'],
    tokenRequests: 0,
    discoveryRequests: 0,
  }

  const provider = new Provider(issuer, {
    clients: [
      {
        client_id: OIDC_CLIENT_ID,
        client_secret: OIDC_CLIENT_SECRET,
        redirect_uris: options.redirectUris,
        response_types: ['code'],
        grant_types: ['authorization_code'],
      },
    ],
    jwks: { keys: [signingJwk] },
    cookies: { keys: ['stand-in cookie signing key'] },
    claims: { openid: ['sub'], email: ['email', 'email_verified'], profile: ['name'] },
    conformIdTokenClaims: options.claimsInIdToken !== true,
    features: { devInteractions: { enabled: false } },
    ttl: {
      AccessToken: 600,
      AuthorizationCode: 60,
      Grant: 600,
      IdToken: 600,
      Interaction: 600,
      Session: 600,
    },
    interactions: {
      url: (_ctx: unknown, interaction: { uid: string }) => `/interaction/${interaction.uid}`,
    },
    async findAccount(_ctx: unknown, sub: string) {
      const account = standIn.accounts.get(sub)
      return account && { accountId: sub, claims: async () => ({ sub, ...account }) }
    },
  })
  provider.use(async (ctx, next) => {
    await next()
    if (ctx.path === '/.well-known/openid-configuration') standIn.discoveryRequests += 1
    if (ctx.path !== '/token') return
    standIn.tokenRequests += 1
    const body = ctx.body as { id_token?: string } | undefined
    if (standIn.rewriteIdToken !== null && typeof body?.id_token === 'string') {
      ctx.body = { ...body, id_token: await standIn.rewriteIdToken(body.id_token) }
    }
  })

  const providerCallback = provider.callback()
  handle = (req, res) => {
    if (!req.url?.startsWith('/interaction/')) return providerCallback(req, res)
    void (async () => {
      const details = await provider.interactionDetails(req, res)
      if (standIn.loginAs === null) {
        const result = { error: 'access_denied', error_description: 'The person declined.' }
        return provider.interactionFinished(req, res, result, { mergeWithLastSubmission: false })
      }
      const grant = new provider.Grant({
        accountId: standIn.loginAs,
        clientId: String(details.params.client_id),
      })
      grant.addOIDCScope(String(details.params.scope))
      const result = {
        login: { accountId: standIn.loginAs },
        consent: { grantId: await grant.save() },
      }
      await provider.interactionFinished(req, res, result, { mergeWithLastSubmission: false })
    })().catch((error: Error) => {
      res.statusCode = 500
      res.end(error.message)
    })
  }

  return Object.assign(standIn, {
    async authorize(authorizationUrl: string): Promise<URL> {
      const cookies = new Map<string, string>()
      let url = new URL(authorizationUrl)
      for (let hop = 0; hop < 10; hop++) {
        const response = await fetch(url, {
          redirect: 'manual',
          headers: { cookie: [...cookies].map(([name, value]) => `${name}=${value}`).join('; ') },
        })
        for (const line of response.headers.getSetCookie()) {
          const [pair = ''] = line.split(';', 1)
          const eq = pair.indexOf('=')
          cookies.set(pair.slice(0, eq), pair.slice(eq + 1))
        }
        const location = response.headers.get('location')
        if (location === null)
          throw new Error(
            `the provider answered ${response.status}: ${(await response.text()).slice(0, 500)}`,
          )
        url = new URL(location, url)
        if (url.origin !== issuer) return url
      }
      throw new Error('too many redirects at the provider')
    },
    decode(token: string): IdTokenParts {
      const [header, claims] = token.split('.')
      return { header: decodePart(header), claims: decodePart(claims) }
    },
    async sign(parts: IdTokenParts, key: 'provider' | 'foreign'): Promise<string> {
      const signWith = key === 'provider' ? privateKey : foreign.privateKey
      return new SignJWT(parts.claims)
        .setProtectedHeader({ ...parts.header, alg: 'RS256', kid: 'test-key' })
        .sign(signWith)
    },
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections()
        server.close(() => resolve())
      }),
  })
}
