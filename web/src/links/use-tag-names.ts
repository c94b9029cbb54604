/**
 * The names of the tags on the links in view. The first PICKER_LIMIT tags come with the tag list;
 * the others on the page are asked by id in one request (tagNamesQuery) and kept per id in the
 * query cache: a page seen before names its tags at once, and a renamed tag (the ['tags']
 * entries invalidated) is asked again while its old name stays on screen.
 */
import { useQuery, useQueryClient } from '@tanstack/react-query'
import { tagNameKey, tagNamesQuery, type Tag } from './queries'

export function useTagNames(
  links: readonly { tag_ids: readonly string[] }[],
  firstPage: readonly Tag[] | undefined,
): (id: string) => string | undefined {
  const queryClient = useQueryClient()
  const known = new Map((firstPage ?? []).map((tag) => [tag.id, tag.name]))
  const missing = [...new Set(links.flatMap((link) => link.tag_ids))]
    .filter((id) => !known.has(id))
    .filter((id) => {
      const state = queryClient.getQueryState(tagNameKey(id))
      return state === undefined || state.isInvalidated
    })
    .sort()
  // Asked once the tag list is there: before, every id would look unknown.
  useQuery({
    ...tagNamesQuery(queryClient, missing),
    enabled: firstPage !== undefined && missing.length > 0,
  })
  return (id) =>
    known.get(id) ?? queryClient.getQueryData<string | null>(tagNameKey(id)) ?? undefined
}
