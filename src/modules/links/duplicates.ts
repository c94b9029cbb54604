/**
 * Duplicate hints: the links the caller can see that point at the page about to be saved, so the
 * link dialog can say "already saved as go/x" and the importer can name them.
 */
import type { Deps } from '../../deps.js'
import type { Caller } from '../../identity/caller.js'
import { urlKey } from '../../lib/url-key.js'
import { findVisibleByUrlKey, findVisibleByUrlKeys, MAX_DUPLICATES } from './duplicates.repo.js'
import type { DuplicateLink, DuplicateList } from './duplicates.schemas.js'
import { reachesLink } from './service.js'
import { normalizeLinkUrl } from './url.js'

export async function findDuplicates(
  deps: Deps,
  caller: Caller,
  url: string,
): Promise<DuplicateList> {
  const key = urlKey(normalizeLinkUrl(url))
  const rows = await findVisibleByUrlKey(deps.db, caller.user.id, key)
  return { items: rows.filter((row) => reachesLink(caller, row)) }
}

/**
 * For the importer's report: per imported URL (the first ones reported), the links the caller
 * could already see at the same key — not those this import created (`createdNow`).
 */
export async function alreadySaved(
  deps: Deps,
  caller: Caller,
  urls: readonly string[],
  createdNow: ReadonlySet<string>,
): Promise<Array<{ url: string; links: DuplicateLink[] }>> {
  const keys = new Map(urls.map((url) => [url, urlKey(url)]))
  const rows = await findVisibleByUrlKeys(deps.db, caller.user.id, [...new Set(keys.values())])
  const byKey = new Map<string, DuplicateLink[]>()
  for (const { url_key: key, ...row } of rows) {
    if (key === null || createdNow.has(row.id) || !reachesLink(caller, row)) continue
    const links = byKey.get(key) ?? []
    if (links.length < MAX_DUPLICATES) links.push(row)
    byKey.set(key, links)
  }
  return urls.flatMap((url) => {
    const links = byKey.get(keys.get(url)!)
    return links === undefined ? [] : [{ url, links }]
  })
}
