/**
 * The go-link preferences: for a slug that several visible links share, the one /go/<slug> opens
 * for this person. Removing one is not confirmed: it is undone in one step (the same choice is
 * stored again), and the worst case is the chooser showing up once more.
 */
import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query'
import { useState } from 'react'
import { client, unwrap } from '../api/client'
import { useI18n } from '../i18n/i18n'
import { announce } from '../ui/announce'
import { FormError } from '../ui/form'
import { Page } from '../ui/page'
import { RelativeTime } from '../ui/time'
import { describeError } from '../ui/describe-error'
import { LinkCell, LinkListSection } from './LinkListSection'
import { preferencesQuery, type Preference } from './queries'

export function PreferencesPage() {
  const i18n = useI18n()
  const { t } = i18n
  const queryClient = useQueryClient()
  const preferences = useQuery(preferencesQuery)
  const [removed, setRemoved] = useState<Preference | null>(null)
  const [failure, setFailure] = useState<string | null>(null)
  const refresh = () => queryClient.invalidateQueries({ queryKey: ['go-preferences'] })

  const remove = useMutation({
    mutationFn: (preference: Preference) =>
      unwrap(
        client.DELETE('/api/go/preferences/{slug}', {
          params: { path: { slug: preference.slug } },
        }),
      ),
    onSuccess: async (_, preference) => {
      setRemoved(preference)
      announce(t('links.preferenceRemoved', { slug: preference.slug }))
      await refresh()
    },
    onError: (error) => setFailure(describeError(error, [], i18n).text),
  })
  const undo = useMutation({
    mutationFn: (preference: Preference) =>
      unwrap(
        client.PUT('/api/go/preferences/{slug}', {
          params: { path: { slug: preference.slug } },
          body: { link_id: preference.link_id },
        }),
      ),
    onSuccess: async (_, preference) => {
      setRemoved(null)
      announce(t('links.preferenceRestored', { slug: preference.slug }))
      await refresh()
    },
    onError: (error) => setFailure(describeError(error, [], i18n).text),
  })

  const items = preferences.data?.items ?? []
  return (
    <Page title={t('links.preferencesTitle')} description={t('links.preferencesDescription')}>
      <FormError>{failure}</FormError>
      {removed !== null && (
        <div className="notice" role="status">
          <span>{t('links.preferenceRemovedNotice', { slug: removed.slug })}</span>
          <button
            type="button"
            className="button button-secondary"
            onClick={() => undo.mutate(removed)}
          >
            {t('links.preferenceUndo')}
          </button>
        </div>
      )}
      <LinkListSection
        id="preferences-heading"
        heading={t('links.preferencesList')}
        empty={preferences.isSuccess && items.length === 0}
        emptyText={t('links.preferencesEmpty')}
        testId="preferences"
        columns={[
          t('links.goLink'),
          t('links.preferenceOpens'),
          t('links.owner'),
          t('links.preferenceChosen'),
        ]}
      >
        {items.map((preference) => (
          <tr key={preference.slug}>
            <td className="mono">go/{preference.slug}</td>
            <LinkCell title={preference.title} url={preference.url} />
            <td>{preference.source_kind === 'personal' ? t('links.onlyMe') : preference.source}</td>
            <td>
              <RelativeTime iso={preference.updated_at} />
            </td>
            <td className="actions">
              <button
                type="button"
                className="button button-danger-outline"
                aria-label={t('links.preferenceRemoveNamed', { slug: preference.slug })}
                onClick={() => {
                  setFailure(null)
                  remove.mutate(preference)
                }}
              >
                {t('links.preferenceRemove')}
              </button>
            </td>
          </tr>
        ))}
      </LinkListSection>
    </Page>
  )
}
