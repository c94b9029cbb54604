/**
 * What a browser gets from /go/{slug}: redirects and HTML pages, never the JSON envelope — the
 * person following a go-link reads the answer.
 */
import type { Deps } from '../../deps.js'
import { AppError } from '../../errors.js'
import { safeEqual } from '../../lib/crypto.js'
import { reachesOrganization, type Caller } from '../../identity/caller.js'
import { csrfTokenFor } from '../../identity/session-issuer.js'
import { expandDestination, parseRest, type Refusal, type Rest } from '../../lib/go-template.js'
import { findForwardingLinks, sumClicksSince } from '../links/repo.js'
import type { VisibleLink } from '../links/visible.repo.js'
import { mayChange } from '../links/service.js'
import { lookupKey } from '../links/slug-matching.js'
import {
  badSlugPage,
  chooserPage,
  detailsPage,
  messagePage,
  missPage,
  type HtmlPage,
} from './html.js'
import { pageContextOf, text, type PageContext } from './page-text.js'
import { similarSlugs } from './similar.js'
import { candidateSourceOf, isSlug, setGoPreference } from './service.js'
import { findVisibleSlugs } from './repo.js'

/** `linkId`: the redirect opens this link, and counts a click for it (clicks.ts). */
export type BrowserAnswer =
  { redirect: string; status: 302 | 303; linkId?: string } | { page: HtmlPage }

/** The login page of the web app, which sends the user back here once signed in. */
export function toLogin(
  deps: Deps,
  slug: string,
  status: 302 | 303,
  request: GoRequest = { rest: null, query: '' },
): BrowserAnswer {
  const path = `/go/${slug}${request.rest === null ? '' : `/${request.rest}`}${request.query === '' ? '' : `?${request.query}`}`
  return {
    redirect: `${deps.config.publicUrl}/login?return_to=${encodeURIComponent(path)}`,
    status,
  }
}

/**
 * What followed the slug in the request: the raw rest of the path (null: none) and the raw query.
 * Kept raw so that %2F, %2e and friends are judged by the template language, not lost to decoding.
 */
export interface GoRequest {
  rest: string | null
  query: string
}

/**
 * Splits what followed the slug — `/<rest>?<query>`, `?<query>` or '' — as the request line has it
 * (redirect.ts) and as the chooser's hidden field `to` carries it.
 */
export function goAddressOf(tail: string): GoRequest {
  const mark = tail.indexOf('?')
  const path = mark === -1 ? tail : tail.slice(0, mark)
  const query = mark === -1 ? '' : tail.slice(mark + 1)
  return { rest: path.startsWith('/') ? path.slice(1) : null, query }
}

export function refusedPage(ctx: PageContext, slug: string, refusal: Refusal): HtmlPage {
  return messagePage(
    ctx,
    400,
    text(ctx.lang, 'refusedTitle', { slug }),
    text(ctx.lang, `refusal.${refusal}`),
    {
      href: '/go/' + encodeURIComponent(slug),
      label: text(ctx.lang, 'openSlug', { slug }),
    },
  )
}

/**
 * The miss page, with the closest slugs among the links the caller sees (within a token's
 * boundary).
 */
export async function miss(
  deps: Deps,
  caller: Caller,
  ctx: PageContext,
  slug: string,
): Promise<BrowserAnswer> {
  const visible = await findVisibleSlugs(deps.db, caller.user.id)
  const reachable = visible.filter(
    (row) => row.organization_id === null || reachesOrganization(caller, row.organization_id),
  )
  const bySlug = new Map(reachable.map((row) => [row.slug, row]))
  const similar = similarSlugs(
    slug,
    reachable.map((row) => row.slug),
  ).map((other) => bySlug.get(other)!)
  return { page: missPage(ctx, slug, similar) }
}

/** The link's destination for this request, or the page saying why not. */
export function destinationFor(
  url: string,
  rest: Rest | null,
  query: string,
): { url: string } | { refusal: Refusal } {
  const result = expandDestination(url, rest, query)
  return result.ok ? { url: result.url } : { refusal: result.refusal }
}

/**
 * `/go/<slug>+`: the details of the links the slug opens, for the caller. Looking is not a click.
 */
async function showDetails(
  deps: Deps,
  caller: Caller | null,
  slug: string,
  ctx: PageContext,
): Promise<BrowserAnswer> {
  if (caller === null) return toLogin(deps, `${slug}+`, 302)
  const links = await findForwardingLinks(deps.db, caller.user.id, await lookupKey(deps, slug))
  if (links.length === 0) return miss(deps, caller, ctx, slug)
  const since = new Date(deps.clock.now().getTime() - 29 * 24 * 60 * 60 * 1000)
    .toISOString()
    .slice(0, 10)
  const clicks = await sumClicksSince(
    deps.db,
    links.map((link) => link.id),
    since,
  )
  const details = links.map((link) => ({
    id: link.id,
    editable: mayChange(link, caller.user.id),
    title: link.title,
    url: link.url,
    source: candidateSourceOf(link),
    createdAt: link.created_at,
    updatedAt: link.updated_at,
    clicks30d: clicks.get(link.id) ?? 0,
  }))
  return { page: detailsPage(ctx, slug, details) }
}

/**
 * What /go/{slug} answers when `slug` is not a slug: the details page of `/go/<slug>+` (nothing may
 * follow it), else the page saying it is not one.
 */
export async function nonSlugPage(
  deps: Deps,
  caller: Caller | null,
  slug: string,
  address: GoRequest,
  acceptLanguage?: string,
): Promise<BrowserAnswer> {
  const ctx = pageContextOf(caller?.user ?? null, acceptLanguage)
  if (slug.endsWith('+') && address.rest === null && isSlug(slug.slice(0, -1)))
    return showDetails(deps, caller, slug.slice(0, -1), ctx)
  return { page: badSlugPage(ctx) }
}

/** The chooser between several links, each opening the address that followed the slug. */
export function chooserAnswer(
  deps: Deps,
  caller: Caller,
  ctx: PageContext,
  slug: string,
  links: VisibleLink[],
  rest: Rest | null,
  address: GoRequest,
): BrowserAnswer {
  const candidates = links.flatMap((link) => {
    const destination = destinationFor(link.url, rest, address.query)
    return 'url' in destination
      ? [{ id: link.id, title: link.title, url: destination.url, source: candidateSourceOf(link) }]
      : []
  })
  if (candidates.length === 0) return { page: refusedPage(ctx, slug, 'other-host') }
  const csrfToken = caller.sessionId === null ? null : csrfTokenFor(deps, caller.sessionId)
  return { page: chooserPage(ctx, slug, candidates, csrfToken, address) }
}

/**
 * Ids this service issues are printable ASCII; anything else names no link (and stays out of SQL).
 */
const PLAUSIBLE_ID = /^[\x21-\x7e]{1,200}$/

/**
 * The chooser's "remember this choice" form. It is a cookie-authenticated POST that cannot carry
 * X-CSRF-Token, so the session's CSRF token comes in a hidden field and is compared in constant
 * time; a form from another site cannot know it.
 */
export async function rememberGoChoice(
  deps: Deps,
  caller: Caller | null,
  slug: string,
  form: Record<string, string | undefined>,
  acceptLanguage?: string,
): Promise<BrowserAnswer> {
  const ctx = pageContextOf(caller?.user ?? null, acceptLanguage)
  if (!isSlug(slug)) return { page: badSlugPage(ctx) }
  if (caller === null) return toLogin(deps, slug, 303)
  const sent = form.csrf_token
  if (
    caller.sessionId === null ||
    sent === undefined ||
    !safeEqual(sent, csrfTokenFor(deps, caller.sessionId))
  ) {
    return {
      page: messagePage(ctx, 403, text(ctx.lang, 'expiredTitle'), text(ctx.lang, 'expiredText'), {
        href: `../${slug}`,
        label: text(ctx.lang, 'openSlug', { slug }),
      }),
    }
  }
  const linkId = form.link_id ?? ''
  const unavailable = () =>
    messagePage(ctx, 400, text(ctx.lang, 'unavailableTitle'), text(ctx.lang, 'unavailableText'), {
      href: `../${slug}`,
      label: text(ctx.lang, 'chooseAgain', { slug }),
    })
  if (!PLAUSIBLE_ID.test(linkId)) return { page: unavailable() }
  // What followed the slug when the chooser was shown (a hidden field), so the choice opens the
  // same address.
  const request = goAddressOf(form.to ?? '')
  const rest = parseRest(request.rest)
  if (typeof rest === 'string') return { page: refusedPage(ctx, slug, rest) }
  try {
    const preference = await setGoPreference(deps, caller, slug, linkId)
    const destination = destinationFor(preference.url, rest, request.query)
    if ('refusal' in destination) return { page: refusedPage(ctx, slug, destination.refusal) }
    // 303: the browser follows with a GET, so a reload cannot post the form again.
    return { redirect: destination.url, status: 303, linkId: preference.link_id }
  } catch (error) {
    if (
      error instanceof AppError &&
      (error.reason === 'NOT_FOUND' || error.reason === 'VALIDATION_FAILED')
    )
      return { page: unavailable() }
    throw error
  }
}
