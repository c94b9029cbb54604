/**
 * The slug field: the API's rule (1–64 letters, digits, underscores or dashes) as help text, and
 * whether the slug is free for the chosen owner, asked of the API while typing.
 */
import { useQuery } from '@tanstack/react-query'
import { useId } from 'react'
import { client, unwrap } from '../api/client'
import { useI18n } from '../i18n/i18n'
import { useDebounced } from './use-debounced'

export const SLUG_PATTERN = /^[A-Za-z0-9_-]{1,64}$/

export function SlugField({
  value,
  onChange,
  organizationId,
  unchanged,
  error,
  refused,
}: {
  value: string
  onChange: (value: string) => void
  organizationId: string | null
  /** The link's own slug (when editing): never "taken" by itself. */
  unchanged: boolean
  error: string | undefined
  /**
   * The API refused this slug on saving: its message (`error`) says so, the live status does not
   * repeat it.
   */
  refused?: boolean
}) {
  const { t } = useI18n()
  const id = useId()
  const slug = useDebounced(value.trim())
  const valid = SLUG_PATTERN.test(slug)
  const availability = useQuery({
    queryKey: ['slug-availability', slug, organizationId],
    queryFn: () =>
      unwrap(
        client.GET('/api/links/slug-availability', {
          params: {
            query: { slug, ...(organizationId !== null && { organization_id: organizationId }) },
          },
        }),
      ),
    enabled: valid && !unchanged,
    staleTime: 5_000,
  })
  let status: { text: string; tone: 'good' | 'weak' } | null = null
  // While typing (the debounced slug behind the field's), no status: a message never names an older
  // slug.
  if (refused === true || slug !== value.trim()) status = null
  else if (slug !== '' && !valid) status = { text: t('links.slugInvalid'), tone: 'weak' }
  else if (slug !== '' && unchanged)
    status = { text: t('links.slugCurrent', { slug }), tone: 'good' }
  else if (availability.data !== undefined && availability.data.slug === slug)
    status = availability.data.available
      ? { text: t('links.slugFree', { slug }), tone: 'good' }
      : { text: t('links.slugTaken', { slug }), tone: 'weak' }
  const describedBy = [`${id}-help`, `${id}-status`, error ? `${id}-error` : null]
    .filter(Boolean)
    .join(' ')
  return (
    <div className="field">
      <label htmlFor={id}>{t('links.slug')}</label>
      <div className="slug-input">
        <span className="slug-prefix mono" aria-hidden="true">
          go/
        </span>
        <input
          id={id}
          name="slug"
          className="mono"
          value={value}
          maxLength={64}
          autoComplete="off"
          spellCheck={false}
          aria-invalid={error ? true : undefined}
          aria-describedby={describedBy}
          onChange={(event) => onChange(event.target.value)}
        />
      </div>
      <p id={`${id}-help`} className="field-help">
        {t('links.slugHelp')}
      </p>
      <p
        id={`${id}-status`}
        className={`slug-status ${status?.tone === 'weak' ? 'slug-status-weak' : 'slug-status-good'}`}
        aria-live="polite"
      >
        {status?.text ?? ''}
      </p>
      {error && (
        <p id={`${id}-error`} className="field-error">
          {error}
        </p>
      )}
    </div>
  )
}
