/**
 * While a new link's URL is typed: the links the person can already see at that page (the API's
 * duplicate key ignores case, default ports, a trailing slash, utm_* and the fragment), so the same
 * page is not saved twice without knowing it.
 */
import { useQuery } from '@tanstack/react-query'
import { client, unwrap } from '../api/client'
import { useI18n } from '../i18n/i18n'
import { withScheme } from './display-url'
import { useDebounced } from './use-debounced'

function looksComplete(url: string): boolean {
  try {
    const parsed = new URL(url)
    return (parsed.protocol === 'http:' || parsed.protocol === 'https:') && parsed.hostname !== ''
  } catch {
    return false
  }
}

export function DuplicateHint({ url }: { url: string }) {
  const { t } = useI18n()
  const settled = useDebounced(withScheme(url.trim()), 300)
  const duplicates = useQuery({
    queryKey: ['link-duplicates', settled],
    queryFn: ({ signal }) =>
      unwrap(client.GET('/api/links/duplicates', { params: { query: { url: settled } }, signal })),
    enabled: looksComplete(settled),
    staleTime: 10_000,
  })
  const first = duplicates.data?.items[0]
  const current = settled === withScheme(url.trim())
  let text = ''
  if (first !== undefined && current) {
    const name = first.slug !== null ? `go/${first.slug}` : (first.title ?? settled)
    text = t('links.alreadySaved', { name, owner: first.owner_name })
    const more = (duplicates.data?.items.length ?? 1) - 1
    if (more > 0) text += ` ${t('links.alreadySavedMore', { count: more })}`
  }
  return (
    <p className="slug-status slug-status-weak" aria-live="polite">
      {text}
    </p>
  )
}
