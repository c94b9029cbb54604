/**
 * Link suggestions (docs/API.md#link-suggestions): a title, a free go-link slug and tags for a new
 * link, from the configured OpenAI-compatible model when the instance and the person want it and
 * the person's hourly budget allows, otherwise from the page and the person's own links (local).
 * The page and the provider can make the answer local, never an error.
 */
import type { Deps } from '../../deps.js'
import { AppError } from '../../errors.js'
import { sha256Hex } from '../../lib/crypto.js'
import type { Caller } from '../../identity/caller.js'
import type { UserRecord } from '../../identity/user.js'
import { findLinkIdBySlug, type LinkOwner } from '../links/repo.js'
import { findVisibleLinks } from '../links/visible.repo.js'
import { assertReachable, linkNotFound, linkOwnerFor, reachesLink } from '../links/service.js'
import { lookupKey } from '../links/slug-matching.js'
import { fetchPageSummary } from '../links/title.js'
import { normalizeLinkUrl } from '../links/url.js'
import { AI_SECTION, openSecret, readSection, type StoredAi } from '../settings/sections.js'
import {
  MAX_TAGS,
  MAX_TITLE,
  matchTags,
  plainText,
  slugify,
  SLUG_GRAMMAR,
  type ModelAnswer,
} from './answer.js'
import { suggestionMetrics } from './metrics.js'
import { askModel } from './model.js'
import {
  findCachedAnswer,
  listTagNamesByUse,
  listTagNamesOnSite,
  reserveModelCall,
  storeCachedAnswer,
} from './repo.js'
import type {
  FallbackReason,
  LinkSuggestions,
  LinkTagSuggestion,
  LinkTagSuggestions,
  SuggestLinkBody,
  SuggestLinkTagsBody,
} from './schemas.js'
import { MODEL_CALLS_IN_FLIGHT, takeSlot } from './slots.js'

export const CACHE_DAYS = 7
/** The existing tags a model is shown: the most used. */
const TAGS_FOR_MODEL = 200
/** Tags read to match the model's against, ignoring case. */
const TAGS_READ = 5000
/** Suffixes tried to make a slug free: `name`, `name-2` … `name-20`. */
const SLUG_TRIES = 20
/** Names of the instance's own paths: never suggested as a go-link. */
const RESERVED_SLUGS = new Set(['api', 'go', 'admin', 'login', 'logout', 'settings', 'assets'])

interface PageFacts {
  title: string | null
  description: string | null
  siteName: string | null
}

/** Why the model is not asked, or null when it may be. */
function unavailable(ai: StoredAi, user: UserRecord): FallbackReason | null {
  if (ai.api_key_encrypted === null || ai.model === null) return 'not_configured'
  if (!ai.enabled || !user.ai_suggestions_enabled) return 'disabled'
  return null
}

const NO_PAGE: PageFacts = { title: null, description: null, siteName: null }

/** The page's facts; none for a template or a page that cannot be read (400s still apply). */
async function readPage(deps: Deps, url: string): Promise<PageFacts> {
  if (/[{}]/.test(url)) return NO_PAGE
  try {
    const { title, description, siteName } = await fetchPageSummary(deps, url)
    return { title, description, siteName }
  } catch (error) {
    if (error instanceof AppError && error.reason === 'UPSTREAM_FAILED') return NO_PAGE
    throw error
  }
}

/** The URL as the model sees it: without its query and fragment, which may carry secrets. */
function withoutQuery(url: string): string {
  const parsed = new URL(url)
  parsed.search = ''
  parsed.hash = ''
  return parsed.href
}

/** `base`, or the first of `base-2` … that is not reserved and free for the owner; else null. */
async function freeSlug(deps: Deps, owner: LinkOwner, base: string | null): Promise<string | null> {
  if (base === null) return null
  for (let n = 1; n <= SLUG_TRIES; n++) {
    const slug = n === 1 ? base : `${base}-${n}`
    if (!SLUG_GRAMMAR.test(slug) || RESERVED_SLUGS.has(slug)) continue
    if ((await findLinkIdBySlug(deps.db, owner, await lookupKey(deps, slug))) === null) return slug
  }
  return null
}

/** Existing tag names that occur in the title as whole words, ignoring case. */
function tagsInTitle(title: string | null, existing: readonly string[]): string[] {
  if (title === null) return []
  const words = ` ${title.toLowerCase().replace(/[^\p{L}\p{N}]+/gu, ' ')} `
  return existing.filter((name) => {
    const key = name
      .toLowerCase()
      .replace(/[^\p{L}\p{N}]+/gu, ' ')
      .trim()
    return key !== '' && words.includes(` ${key} `)
  })
}

async function localAnswer(
  deps: Deps,
  userId: string,
  url: string,
  page: PageFacts,
  existing: readonly string[],
): Promise<ModelAnswer> {
  const site = await listTagNamesOnSite(deps.db, userId, `${new URL(url).origin}/`, MAX_TAGS)
  return {
    title: page.title,
    slug: slugify(page.title),
    tags: [...site, ...tagsInTitle(page.title, existing)],
  }
}

/** The model's answer for this person, scope, URL and language: cached, or asked for now. */
async function modelAnswer(
  deps: Deps,
  input: {
    user: UserRecord
    ai: StoredAi
    cacheKey: string
    url: string
    page: () => Promise<PageFacts>
    existing: readonly string[]
  },
): Promise<ModelAnswer | FallbackReason> {
  const { user, ai } = input
  const now = deps.clock.now()
  const cached = await findCachedAnswer(deps.db, user.id, input.cacheKey, now.toISOString())
  if (cached !== null) return JSON.parse(cached) as ModelAnswer
  const hour = now.toISOString().slice(0, 13)
  if (!(await reserveModelCall(deps.db, user.id, hour, ai.suggestions_hourly_limit)))
    return 'budget'
  let apiKey: string
  try {
    apiKey = openSecret(deps, AI_SECTION, ai.api_key_encrypted!, 'AI API key')
  } catch {
    return 'not_configured'
  }
  const page = await input.page()
  const metrics = suggestionMetrics(deps.metrics.registry)
  const signal = AbortSignal.timeout(ai.timeout_seconds * 1000)
  const release = await takeSlot(deps, signal)
  if (release === null) return 'timeout'
  const started = performance.now()
  let result
  try {
    result = await askModel(
      deps.ai,
      { baseUrl: ai.base_url, apiKey, allowPrivateNetwork: ai.allow_private_network },
      {
        model: ai.model!,
        signal,
        input: {
          ...page,
          url: withoutQuery(input.url),
          existingTags: input.existing.slice(0, TAGS_FOR_MODEL),
          existingTagsOnly: ai.suggestions_existing_tags_only,
          language: user.language,
        },
      },
    )
  } finally {
    release()
  }
  metrics.modelSeconds.observe((performance.now() - started) / 1000)
  metrics.modelCalls.inc({ outcome: typeof result === 'string' ? result : 'ok' })
  if (typeof result === 'string') return result
  await storeCachedAnswer(deps.db, {
    userId: user.id,
    cacheKey: input.cacheKey,
    answer: JSON.stringify(result),
    expiresAt: new Date(now.getTime() + CACHE_DAYS * 86_400_000).toISOString(),
    now: now.toISOString(),
  })
  return result
}

/** What every suggestion of one request reads once: the settings and the person's tags. */
interface Context {
  user: UserRecord
  ai: StoredAi
  existing: readonly string[]
}

async function contextOf(deps: Deps, user: UserRecord): Promise<Context> {
  const [{ stored: ai }, existing] = await Promise.all([
    readSection(deps, AI_SECTION),
    listTagNamesByUse(deps.db, user.id, TAGS_READ),
  ])
  return { user, ai, existing }
}

/**
 * The answer for one URL: the model's (cached, or asked now) or local, with the reason it is
 * local. `title` stands in for the page's own; the page is read at most once, and only when the
 * model is asked or the answer is local. `local` forces a local answer for that reason.
 */
async function answerFor(
  deps: Deps,
  context: Context,
  input: {
    url: string
    title: string | null
    organizationId: string | null
    readPage: (url: string) => Promise<PageFacts>
    local?: FallbackReason
  },
): Promise<{ answer: ModelAnswer; fallback: FallbackReason | null }> {
  const { user, ai, existing } = context
  const { url } = input
  let page: Promise<PageFacts> | undefined
  const pageOnce = () =>
    (page ??= input
      .readPage(url)
      .then((facts) => ({ ...facts, title: input.title ?? facts.title })))
  const outcome: ModelAnswer | FallbackReason =
    input.local ??
    unavailable(ai, user) ??
    (await modelAnswer(deps, {
      user,
      ai,
      // The fragment never reaches the server; the query may name another page.
      cacheKey: sha256Hex(
        JSON.stringify([input.organizationId, url.replace(/#.*$/s, ''), user.language]),
      ),
      url,
      page: pageOnce,
      existing,
    }))
  if (typeof outcome !== 'string') return { answer: outcome, fallback: null }
  suggestionMetrics(deps.metrics.registry).fallbacks.inc({ reason: outcome })
  return {
    answer: await localAnswer(deps, user.id, url, await pageOnce(), existing),
    fallback: outcome,
  }
}

export async function suggestLinkDetails(
  deps: Deps,
  caller: Caller,
  body: SuggestLinkBody,
): Promise<LinkSuggestions> {
  assertReachable(caller, body.organization_id)
  const url = normalizeLinkUrl(body.url)
  const owner = await linkOwnerFor(deps.db, caller.user.id, body.organization_id)
  const context = await contextOf(deps, caller.user)
  const { answer, fallback } = await answerFor(deps, context, {
    url,
    title: body.title ?? null,
    organizationId: body.organization_id ?? null,
    readPage: (page) => readPage(deps, page),
  })
  const title = plainText(answer.title, MAX_TITLE)
  const existingOnly = fallback !== null || context.ai.suggestions_existing_tags_only
  return {
    source: fallback === null ? 'ai' : 'local',
    title,
    slug: await freeSlug(deps, owner, answer.slug ?? slugify(title)),
    ...matchTags(answer.tags, context.existing, existingOnly),
    ...(fallback !== null && { fallback_reason: fallback }),
  }
}

/** Links answered at once by one bulk suggestion: the model's in-flight limit, kept busy. */
const BULK_WORKERS = MODEL_CALLS_IN_FLIGHT
/** After this, the links not yet started get local suggestions from their titles alone. */
export const BULK_DEADLINE_MS = 45_000

/**
 * A stored link's page, for a bulk suggestion: a page that cannot be read, or that the outbound
 * rules refuse, gives no facts (the link exists; its title still counts) instead of failing the
 * whole request.
 */
async function readStoredLinkPage(deps: Deps, url: string): Promise<PageFacts> {
  try {
    return await readPage(deps, url)
  } catch (error) {
    if (error instanceof AppError) return NO_PAGE
    throw error
  }
}

/**
 * Tag suggestions for up to MAX_SUGGESTED_LINKS of the caller's visible links (the Links page's
 * "Suggest tags"), as the link dialog gets them: the same cache, hourly budget and in-flight
 * limit, the link's own title standing in for the page's. Nothing is stored but the cache; the
 * console applies what the person keeps through the bulk tag action. One link the caller cannot
 * see (or outside an API token's boundary) is 404 for all, as in bulk actions.
 */
export async function suggestLinkTags(
  deps: Deps,
  caller: Caller,
  body: SuggestLinkTagsBody,
): Promise<LinkTagSuggestions> {
  const ids = body.link_ids
  const links = await findVisibleLinks(deps.db, caller.user.id, ids)
  if (links.length !== ids.length || !links.every((link) => reachesLink(caller, link)))
    throw linkNotFound()
  const byId = new Map(links.map((link) => [link.id, link]))
  const context = await contextOf(deps, caller.user)
  const existingOnly = context.ai.suggestions_existing_tags_only
  const deadline = deps.clock.now().getTime() + BULK_DEADLINE_MS
  const items: LinkTagSuggestion[] = []
  let next = 0
  const work = async () => {
    for (let index = next++; index < ids.length; index = next++) {
      const link = byId.get(ids[index]!)!
      const late = deps.clock.now().getTime() > deadline
      const { answer, fallback } = await answerFor(deps, context, {
        url: link.url,
        title: link.title !== null && link.title.trim() !== '' ? link.title : null,
        organizationId: link.organization_id,
        readPage: late ? async () => NO_PAGE : (url) => readStoredLinkPage(deps, url),
        ...(late && { local: 'timeout' as const }),
      })
      items[index] = {
        link_id: link.id,
        source: fallback === null ? 'ai' : 'local',
        ...matchTags(answer.tags, context.existing, fallback !== null || existingOnly),
        ...(fallback !== null && { fallback_reason: fallback }),
      }
    }
  }
  await Promise.all(Array.from({ length: Math.min(BULK_WORKERS, ids.length) }, work))
  return { items }
}
