/**
 * GET /go/{slug} and GET /go/{slug}/{rest}?{query}: one straight function from the request to its
 * answer. It reads the credential, runs the one statement — for an access JWT, the session's
 * lookup with the slug's forwarding links joined to it (repo.ts findSessionWithGoCandidates), so a
 * redirect asks the database what GET /api/users/me asks — admits the session by the rules every
 * session is held to (identity/hook.ts admitPageSession), and picks the target: the link the person
 * chose for the slug, the only one, a chooser, or the miss page.
 *
 * An sb_ token names its user only in its own row: it is authenticated first, then its owner's
 * links are read (two statements). `/go/<slug>+` and whatever else is not a slug read the caller
 * alone (browser.ts nonSlugPage).
 */
import type { FastifyRequest } from 'fastify'
import type { Deps } from '../../deps.js'
import { reachesOrganization, type Caller } from '../../identity/caller.js'
import { accessTokenOf, admitPageSession, optionalCaller } from '../../identity/hook.js'
import { parseRest } from '../../lib/go-template.js'
import { findForwardingLinks, findGoCandidates, type GoCandidate } from '../links/repo.js'
import type { VisibleLink } from '../links/visible.repo.js'
import { lookupKey } from '../links/slug-matching.js'
import {
  chooserAnswer,
  destinationFor,
  goAddressOf,
  miss,
  nonSlugPage,
  refusedPage,
  toLogin,
  type BrowserAnswer,
} from './browser.js'
import { pageContextOf } from './page-text.js'
import { deletePreference, findPreferredLinkId, findSessionWithGoCandidates } from './repo.js'
import { isSlug } from './service.js'

export async function serveGo(deps: Deps, request: FastifyRequest): Promise<BrowserAnswer> {
  const slug = (request.params as { slug: string }).slug
  // From the request line itself: the router's decoded wildcard would hide %2F and %2e%2e from the
  // template language's checks.
  const afterGo = request.url.slice(request.url.indexOf('/go/') + '/go/'.length)
  const end = afterGo.search(/[/?]/)
  const address = goAddressOf(end === -1 ? '' : afterGo.slice(end))
  const language = request.headers['accept-language']
  if (!isSlug(slug))
    return nonSlugPage(deps, await optionalCaller(deps, request), slug, address, language)

  const signedIn = await signedInWithLinks(deps, request, slug)
  if (signedIn.caller === null) return toLogin(deps, slug, 302, address)
  const { caller, key, found } = signedIn
  // Only pages have a language and a theme: a redirect (the hot path) does not work them out.
  const ctx = () => pageContextOf(caller.user, language)
  const rest = parseRest(address.rest)
  if (typeof rest === 'string') return { page: refusedPage(ctx(), slug, rest) }
  const target = await pickTarget(deps, caller, key, found)
  if (target.kind === 'none') return miss(deps, caller, ctx(), slug)
  if (target.kind === 'choose')
    return chooserAnswer(deps, caller, ctx(), slug, target.links, rest, address)
  const destination = destinationFor(target.url, rest, address.query)
  return 'url' in destination
    ? { redirect: destination.url, status: 302, linkId: target.linkId }
    : { page: refusedPage(ctx(), slug, destination.refusal) }
}

/** The forwarding links with the slug's key that the caller's user sees, and their choice. */
interface Found {
  links: GoCandidate[]
  /** The link the user chose for the slug (null: none, or no link matched). */
  preferred: string | null
}

type SignedIn = { caller: Caller; key: string; found: Found } | { caller: null }

async function signedInWithLinks(
  deps: Deps,
  request: FastifyRequest,
  slug: string,
): Promise<SignedIn> {
  const jwt = accessTokenOf(deps, request)
  if (jwt === null) {
    const caller = await optionalCaller(deps, request)
    if (caller === null) return { caller }
    const key = await lookupKey(deps, slug)
    return { caller, key, found: await findGoCandidates(deps.db, caller.user.id, key) }
  }
  const claims = await deps.accessTokens.verify(jwt)
  if (claims === null) return { caller: null }
  const now = deps.clock.now()
  const key = await lookupKey(deps, slug)
  // The links are read for the user the token names; they are handed over only with a live
  // session of that same user (admitSession compares them).
  const { session, links, preferred } = await findSessionWithGoCandidates(
    deps.db,
    claims.sid,
    claims.sub,
    key,
  )
  const caller = admitPageSession(deps, claims, session, now)
  return caller === null ? { caller } : { caller, key, found: { links, preferred } }
}

type GoTarget =
  | { kind: 'redirect'; url: string; linkId: string }
  | { kind: 'choose'; links: VisibleLink[] }
  | { kind: 'none' }

/** Where the slug takes the caller: their preference, the only candidate, a choice, or nowhere. */
async function pickTarget(
  deps: Deps,
  caller: Caller,
  key: string,
  found: Found,
): Promise<GoTarget> {
  const userId = caller.user.id
  // The chosen link comes with the links; only when none forwards is it asked for alone (to drop
  // it if stale).
  const preferred =
    found.links.length === 0 ? await findPreferredLinkId(deps.db, userId, key) : found.preferred
  const links = withinBoundary(caller, found.links)
  if (preferred !== null) {
    const link = links.find((candidate) => candidate.id === preferred)
    if (link !== undefined) return { kind: 'redirect', url: link.url, linkId: link.id }
    // Stale: only this preference goes, not one chosen meanwhile (nor one merely outside a
    // token's boundary).
    if (!found.links.some((candidate) => candidate.id === preferred))
      await deletePreference(deps.db, userId, key, preferred)
  }
  if (links.length === 1) return { kind: 'redirect', url: links[0]!.url, linkId: links[0]!.id }
  if (links.length === 0) return { kind: 'none' }
  // The chooser shows each link's title and organization, in order: read whole now (the redirect
  // reads less).
  const whole = withinBoundary(caller, await findForwardingLinks(deps.db, userId, key))
  if (whole.length === 1) return { kind: 'redirect', url: whole[0]!.url, linkId: whole[0]!.id }
  return whole.length === 0 ? { kind: 'none' } : { kind: 'choose', links: whole }
}

/** An API token's organization boundary hides the links of the organizations outside it. */
function withinBoundary<T extends GoCandidate>(caller: Caller, links: T[]): T[] {
  return caller.grant === null
    ? links
    : links.filter(
        (link) =>
          link.organization_id === null || reachesOrganization(caller, link.organization_id),
      )
}
