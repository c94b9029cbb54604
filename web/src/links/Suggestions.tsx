/**
 * The link dialog's Suggestions row (creating only): after the URL has settled, the service's
 * suggested title, go-link and tags as chips. Nothing is filled in by itself: a click applies one
 * chip, "Use all" fills only what is still empty and adds the tags. A tag that does not exist yet
 * is marked new and created when the link is saved. The previous request is cancelled when the
 * URL changes; the result is announced politely.
 */
import { useQuery } from '@tanstack/react-query'
import { useEffect } from 'react'
import { client, unwrap } from '../api/client'
import { useI18n } from '../i18n/i18n'
import { announce } from '../ui/announce'
import { withScheme } from './display-url'
import { useDebounced } from './use-debounced'

export interface Suggested {
  source: 'ai' | 'local'
  title: string | null
  slug: string | null
  tags: string[]
  new_tags: string[]
}

/** Whether the text is worth asking about: an http(s) URL with a host. */
function askable(text: string): string | null {
  try {
    const url = new URL(withScheme(text.trim()))
    return /^https?:$/.test(url.protocol) && url.hostname.includes('.') ? url.href : null
  } catch {
    return null
  }
}

export function Suggestions({
  url,
  organizationId,
  title,
  slug,
  tagNames,
  onTitle,
  onSlug,
  onTag,
}: {
  url: string
  organizationId: string | null
  title: string
  slug: string
  /** The names of the tags the link carries now, existing or new. */
  tagNames: string[]
  onTitle: (title: string) => void
  onSlug: (slug: string) => void
  onTag: (name: string, isNew: boolean) => void
}) {
  const { t } = useI18n()
  const target = askable(useDebounced(url, 400))
  const suggestions = useQuery({
    queryKey: ['link-suggestions', target, organizationId],
    enabled: target !== null,
    staleTime: 5 * 60_000,
    retry: false,
    queryFn: ({ signal }) =>
      unwrap(
        client.POST('/api/links/suggestions', {
          body: {
            url: target!,
            ...(organizationId !== null && { organization_id: organizationId }),
          },
          signal,
        }),
      ) as Promise<Suggested>,
  })
  const data = suggestions.data
  useEffect(() => {
    if (data !== undefined) announce(t('links.suggestionsReady'))
  }, [data, t])
  if (target === null || data === undefined) return null
  const has = new Set(tagNames.map((name) => name.toLowerCase()))
  const tags = data.tags.filter((tag) => !has.has(tag.toLowerCase()))
  const offersTitle = data.title !== null && data.title !== title
  const offersSlug = data.slug !== null && data.slug !== slug
  if (!offersTitle && !offersSlug && tags.length === 0) return null
  const isNew = (tag: string) => data.new_tags.includes(tag)
  return (
    <section className="suggestions" aria-labelledby="suggestions-heading">
      <h3 id="suggestions-heading" className="suggestions-heading">
        {t('links.suggestions')}
        {data.source === 'ai' && (
          <span className="badge" title={t('links.suggestionsAiMark')}>
            {t('links.suggestionsAi')}
          </span>
        )}
      </h3>
      <ul className="chips" role="list">
        {offersTitle && (
          <li>
            <button type="button" className="chip" onClick={() => onTitle(data.title!)}>
              {t('links.suggestedTitle', { title: data.title! })}
            </button>
          </li>
        )}
        {offersSlug && (
          <li>
            <button type="button" className="chip" onClick={() => onSlug(data.slug!)}>
              {t('links.suggestedSlug', { slug: data.slug! })}
            </button>
          </li>
        )}
        {tags.map((tag) => (
          <li key={tag}>
            <button type="button" className="chip" onClick={() => onTag(tag, isNew(tag))}>
              {t('links.suggestedTag', { tag })}
              {isNew(tag) && <span className="badge">{t('links.suggestedTagNew')}</span>}
            </button>
          </li>
        ))}
        <li>
          <button
            type="button"
            className="button button-secondary"
            onClick={() => {
              if (title.trim() === '' && data.title !== null) onTitle(data.title)
              if (slug.trim() === '' && data.slug !== null) onSlug(data.slug)
              for (const tag of tags) onTag(tag, isNew(tag))
            }}
          >
            {t('links.suggestionsUseAll')}
          </button>
        </li>
      </ul>
    </section>
  )
}
