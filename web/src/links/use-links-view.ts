/**
 * The Links page's view: its search, filters, order and cursor live in the query string
 * (shareable; Back returns to the same view), the typed search settles into the address after a
 * pause, the tag filter names the tag (the API takes its id), and a selection holds only links in
 * view; the rows name every tag they carry (use-tag-names). The palette's "Create link" arrives
 * as `?new=1` (with `slug` from the /go miss page), the /go/<slug>+ page's "Edit" as
 * `?edit=<link id>`.
 */
import { useQuery } from '@tanstack/react-query'
import { getRouteApi, useNavigate } from '@tanstack/react-router'
import { useEffect, useMemo, useState } from 'react'
import {
  linksCountQuery,
  linksQuery,
  organizationsQuery,
  tagSearchQuery,
  tagsQuery,
  type LinksSearch,
  type Tag,
} from './queries'
import { useDebounced } from './use-debounced'
import { useTagNames } from './use-tag-names'

const route = getRouteApi('/shell/links')

/** How long typing rests before the search goes into the address (and to the API). */
const SEARCH_DELAY_MS = 300

export type LinksScope = 'all' | 'mine' | 'organizations' | 'shared'

export function useLinksView({
  onCreate,
  onEdit,
}: {
  onCreate: (slug?: string) => void
  onEdit: (id: string) => void
}) {
  const search: LinksSearch = route.useSearch()
  const navigate = useNavigate()
  const tags = useQuery(tagsQuery)
  const organizations = useQuery(organizationsQuery)
  const [q, setQ] = useState(search.q ?? '')
  const settledQ = useDebounced(q, SEARCH_DELAY_MS)

  const tagItems = useMemo(() => tags.data?.items ?? [], [tags.data])
  const named = (items: readonly Tag[] | undefined) =>
    items?.find((tag) => tag.name.toLowerCase() === search.tag!.toLowerCase())
  const inFirstPage = search.tag === undefined ? undefined : named(tagItems)
  // A tag past the picker's first page is looked up by its name.
  const lookUp = search.tag !== undefined && tags.isSuccess && inFirstPage === undefined
  const byName = useQuery({ ...tagSearchQuery(search.tag ?? ''), enabled: lookUp })
  const filterTag = inFirstPage ?? (lookUp ? named(byName.data?.items) : undefined)
  const unknownTag = lookUp && byName.isSuccess && !byName.isPlaceholderData && !filterTag
  const ready = search.tag === undefined || filterTag !== undefined
  // Pinned links first: on the first page above the others, whose pages follow; a collection's
  // list keeps the collection's order.
  const split = search.collection === undefined
  const apiSearch = { ...search, tag: filterTag?.id }
  const links = useQuery({
    ...linksQuery(apiSearch, split ? false : undefined),
    enabled: ready,
  })
  const pinned = useQuery({
    ...linksQuery({ ...apiSearch, cursor: undefined }, true),
    enabled: ready && split && search.cursor === undefined,
  })
  const pinnedItems = split && search.cursor === undefined ? pinned.data?.items : undefined
  const items = useMemo(
    () => [...(pinnedItems ?? []), ...(links.data?.items ?? [])],
    [pinnedItems, links.data],
  )
  const tagName = useTagNames(items, tags.data?.items)
  const total = useQuery({
    ...linksCountQuery(apiSearch),
    enabled: links.isSuccess && items.length > 0,
  })
  // The first page starts at 1; a later one where its address says (absent in an older address).
  const start = search.cursor === undefined ? 1 : search.from

  const setSearch = (changes: Partial<LinksSearch>) =>
    void navigate({
      to: '/links',
      search: {
        ...search,
        ...changes,
        cursor: 'cursor' in changes ? changes.cursor : undefined,
        from: 'cursor' in changes ? changes.from : undefined,
      },
    })

  useEffect(() => setQ(search.q ?? ''), [search.q])
  useEffect(() => {
    const next = settledQ.trim() === '' ? undefined : settledQ.trim()
    if (next !== search.q)
      void navigate({
        to: '/links',
        search: { ...search, q: next, cursor: undefined, from: undefined },
        replace: true,
      })
    // Only a settled change of the typed text searches (its one dependency); a change of the
    // address updates `q` above.
  }, [settledQ])
  useEffect(() => {
    if (search.new) {
      onCreate(search.slug)
      void navigate({
        to: '/links',
        search: { ...search, new: undefined, slug: undefined },
        replace: true,
      })
    }
    if (search.edit !== undefined) {
      onEdit(search.edit)
      void navigate({ to: '/links', search: { ...search, edit: undefined }, replace: true })
    }
    // The flags are read once per address; the callbacks are the page's setters of the moment.
  }, [search, navigate])

  const scope: LinksScope =
    search.owner === 'mine' || search.owner === 'organizations' || search.owner === 'shared'
      ? search.owner
      : 'all'
  return {
    search,
    setSearch,
    q,
    setQ,
    tags: tagItems,
    tagName,
    organizations: organizations.data?.items ?? [],
    filterTag,
    unknownTag,
    links,
    items,
    total: total.data?.total,
    /** More links than `total` (the API counts to 1,000). */
    capped: total.data?.capped ?? false,
    start,
    scope,
    filtered:
      search.q !== undefined ||
      search.tag !== undefined ||
      search.owner !== undefined ||
      search.collection !== undefined,
    selection: useSelection(items),
  }
}

export type LinksView = ReturnType<typeof useLinksView>

/** The rows ticked for bulk actions: only links in view (another page or filter starts afresh). */
function useSelection(items: readonly { id: string }[]) {
  const [selected, setSelected] = useState<ReadonlySet<string>>(new Set())
  useEffect(
    () =>
      setSelected(
        (current) => new Set(items.filter((link) => current.has(link.id)).map((link) => link.id)),
      ),
    [items],
  )
  const allSelected = items.length > 0 && items.every((link) => selected.has(link.id))
  return {
    selected,
    allSelected,
    toggle: (id: string, on: boolean) => {
      const next = new Set(selected)
      if (on) next.add(id)
      else next.delete(id)
      setSelected(next)
    },
    toggleAll: () => setSelected(allSelected ? new Set() : new Set(items.map((link) => link.id))),
    clear: () => setSelected(new Set()),
  }
}
