/**
 * Go-links (docs/API.md#go-links): /go/{slug} opens the one visible forwarding link with
 * that slug, or the one the user chose among several (redirect.ts). A preference whose link
 * disappeared, stopped forwarding, lost the slug or became invisible is ignored, and deleted when
 * met. Here: the preferences API and what the pages share.
 */
import type { Deps } from '../../deps.js'
import { pageWindow } from '../../db/keyset.js'
import { AppError, invalidField } from '../../errors.js'
import { toPage, type Page, type PageQuery } from '../../lib/pagination.js'
import type { Caller } from '../../identity/caller.js'
import { findVisibleLink } from '../links/visible.repo.js'
import { SLUG_PATTERN } from '../links/schemas.js'
import { linkNotFound, reachesLink } from '../links/service.js'
import { slugKey } from '../links/url.js'
import { foldsSeparators, lookupKey } from '../links/slug-matching.js'
import {
  deletePreference,
  deleteStalePreferences,
  listPreferences,
  upsertPreference,
} from './repo.js'
import type { CandidateSource } from './html.js'
import type { PreferenceView } from './schemas.js'

const SLUG = new RegExp(SLUG_PATTERN)

export function isSlug(text: string): boolean {
  return SLUG.test(text)
}

/**
 * `personal`, or the name of the organization the link is shared with (`source_kind` tells which).
 */
export function sourceOf(link: { organization_name: string | null }): string {
  return link.organization_name ?? 'personal'
}

/** An organization may be called "personal": `source_kind`, not the name, says which kind it is. */
export function sourceKindOf(link: {
  organization_name: string | null
}): 'personal' | 'organization' {
  return link.organization_name === null ? 'personal' : 'organization'
}

export function candidateSourceOf(link: { organization_name: string | null }): CandidateSource {
  return link.organization_name === null
    ? { kind: 'personal' }
    : { kind: 'organization', name: link.organization_name }
}

export async function listGoPreferences(
  deps: Deps,
  caller: Caller,
  query: PageQuery,
): Promise<Page<PreferenceView>> {
  const window = pageWindow(query)
  await deleteStalePreferences(deps.db, caller.user.id)
  // An API token's boundary hides the preferences for links of organizations outside it.
  const rows = await listPreferences(
    deps.db,
    caller.user.id,
    window,
    caller.grant?.organizations ?? null,
  )
  return toPage(
    rows,
    window.limit,
    (row) => ({
      slug: row.slug,
      link_id: row.link_id,
      title: row.title,
      url: row.url,
      source: sourceOf(row),
      source_kind: sourceKindOf(row),
      updated_at: row.updated_at,
    }),
    (row) => [row.slug_key, ''],
  )
}

/**
 * Remembers `linkId` for the slug: it must be a link the caller sees, with that slug, that
 * forwards.
 */
export async function setGoPreference(
  deps: Deps,
  caller: Caller,
  slug: string,
  linkId: string,
): Promise<PreferenceView> {
  if (!isSlug(slug))
    throw invalidField('slug', 'must be 1–64 letters, digits, underscores or dashes')
  const fold = await foldsSeparators(deps)
  const updatedAt = deps.clock.now().toISOString()
  const link = await deps.db.transaction().execute(async (tx) => {
    const found = await findVisibleLink(tx, caller.user.id, linkId)
    if (found === null || !reachesLink(caller, found)) throw linkNotFound()
    if (found.slug === null || slugKey(found.slug, fold) !== slugKey(slug, fold))
      throw invalidField('link_id', `is not a link with the slug ${slug}`)
    if (!found.forwarding_enabled) throw invalidField('link_id', 'is a link that does not forward')
    await upsertPreference(tx, {
      user_id: caller.user.id,
      slug_key: slugKey(slug, fold),
      link_id: linkId,
      updated_at: updatedAt,
    })
    return found
  })
  return {
    slug: link.slug!,
    link_id: link.id,
    title: link.title,
    url: link.url,
    source: sourceOf(link),
    source_kind: sourceKindOf(link),
    updated_at: updatedAt,
  }
}

export async function deleteGoPreference(deps: Deps, caller: Caller, slug: string): Promise<void> {
  const key = await lookupKey(deps, slug)
  const reachable = caller.grant?.organizations ?? null
  if (!(await deletePreference(deps.db, caller.user.id, key, undefined, reachable))) {
    throw new AppError('NOT_FOUND', { message: 'You have no preference for this slug.' })
  }
}
