/**
 * The link dialog's live preview: where `go/<slug>/<path>` would lead for the
 * destination as typed — asked of the API, which applies the redirect's own rules (path appending,
 * query merging, templates, refusals), so the preview never disagrees with the redirect.
 */
import { useQuery } from '@tanstack/react-query'
import { useId, useState } from 'react'
import { client, unwrap } from '../api/client'
import { useI18n } from '../i18n/i18n'
import { useDebounced } from './use-debounced'

/** The redirect's refusals, each with its own sentence. */
const REFUSALS = {
  'bad-encoding': 'golinks.refusalBadEncoding',
  'dot-segment': 'golinks.refusalDotSegment',
  'other-host': 'golinks.refusalOtherHost',
  'too-long': 'golinks.refusalTooLong',
  invalid: 'golinks.refusalInvalid',
} as const

export function GoPreview({ url, slug }: { url: string; slug: string }) {
  const { t } = useI18n()
  const id = useId()
  const [rest, setRest] = useState('')
  const settledUrl = useDebounced(url.trim())
  const settledRest = useDebounced(rest.trim())
  const mark = settledRest.indexOf('?')
  const path = (mark === -1 ? settledRest : settledRest.slice(0, mark)).replace(/^\/+/, '')
  const query = mark === -1 ? '' : settledRest.slice(mark + 1)
  const preview = useQuery({
    queryKey: ['go-preview', settledUrl, path, query],
    queryFn: () =>
      unwrap(
        client.GET('/api/links/go-preview', {
          params: {
            query: {
              url: settledUrl,
              ...(path !== '' && { path: encodeURI(path) }),
              ...(query !== '' && { query }),
            },
          },
        }),
      ),
    enabled: settledUrl !== '',
    staleTime: 30_000,
  })
  const name = `go/${slug.trim() === '' ? '…' : slug.trim()}${path === '' ? '' : `/${path}`}${query === '' ? '' : `?${query}`}`
  return (
    <div className="field go-preview">
      <label htmlFor={id}>{t('golinks.previewPath')}</label>
      <input
        id={id}
        value={rest}
        maxLength={1024}
        placeholder="a/b?tab=1"
        onChange={(event) => setRest(event.target.value)}
        aria-describedby={`${id}-result`}
      />
      <p id={`${id}-result`} className="field-help" aria-live="polite">
        {settledUrl === '' || preview.data === undefined ? (
          t('golinks.previewEmpty')
        ) : preview.data.url !== null ? (
          <>
            <span className="mono">{name}</span> →{' '}
            <span className="mono go-preview-url">{preview.data.url}</span>
          </>
        ) : (
          t(REFUSALS[preview.data.refusal ?? 'invalid'], { name })
        )}
      </p>
    </div>
  )
}
