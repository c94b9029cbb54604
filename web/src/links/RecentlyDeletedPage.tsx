/**
 * Recently deleted links: kept 30 days, restorable with their tags and click counts.
 * A slug taken meanwhile is asked for again (another slug, or none) in a small dialog.
 */
import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query'
import { useState } from 'react'
import { Dialog, Heading, Modal, ModalOverlay } from 'react-aria-components'
import { client, unwrap } from '../api/client'
import { ApiError } from '../api/errors'
import { useI18n } from '../i18n/i18n'
import { announce } from '../ui/announce'
import { describeError } from '../ui/describe-error'
import { DialogForm } from '../ui/dialog-form'
import { FormError, SubmitButton } from '../ui/form'
import { Page } from '../ui/page'
import { RelativeTime } from '../ui/time'
import { LinkCell, LinkListSection } from './LinkListSection'
import { deletedLinksQuery, type DeletedLink } from './ownership-queries'
import { SlugField } from './SlugField'

export function RecentlyDeletedPage() {
  const i18n = useI18n()
  const { t } = i18n
  const queryClient = useQueryClient()
  const deleted = useQuery(deletedLinksQuery)
  const [failure, setFailure] = useState<string | null>(null)
  const [conflict, setConflict] = useState<DeletedLink | null>(null)

  const restore = useMutation({
    mutationFn: ({ link, slug }: { link: DeletedLink; slug?: string | null }) =>
      unwrap(
        client.POST('/api/links/deleted/{id}/restore', {
          params: { path: { id: link.id } },
          body: slug === undefined ? {} : { slug },
        }),
      ),
    onSuccess: async (restored) => {
      setConflict(null)
      announce(t('golinks.restored', { name: restored.title ?? restored.url }))
      await queryClient.invalidateQueries({ queryKey: ['links'] })
      await queryClient.invalidateQueries({ queryKey: ['deleted-links'] })
    },
    onError: (error, { link }) => {
      if (error instanceof ApiError && error.reason === 'ALREADY_EXISTS') setConflict(link)
      else setFailure(describeError(error, [], i18n).text)
    },
  })

  const items = deleted.data?.items ?? []
  return (
    <Page title={t('golinks.deletedTitle')} description={t('golinks.deletedDescription')}>
      <FormError>{failure}</FormError>
      <LinkListSection
        id="deleted-heading"
        heading={t('golinks.deletedList')}
        empty={deleted.isSuccess && items.length === 0}
        emptyText={t('golinks.deletedEmpty')}
        testId="deleted-links"
        columns={[
          t('links.titleField'),
          t('links.goLink'),
          t('golinks.deletedAt'),
          t('golinks.purgeAt'),
        ]}
      >
        {items.map((link) => (
          <tr key={link.id}>
            <LinkCell title={link.title} url={link.url} />
            <td className="mono">
              {link.slug === null ? (
                <span className="muted">{t('links.noSlug')}</span>
              ) : (
                `go/${link.slug}`
              )}
            </td>
            <td>
              <RelativeTime iso={link.deleted_at} />
            </td>
            <td>
              <RelativeTime iso={link.purge_at} />
            </td>
            <td className="actions">
              <button
                type="button"
                className="button button-secondary"
                aria-label={t('golinks.restoreNamed', { name: link.title ?? link.url })}
                onClick={() => {
                  setFailure(null)
                  restore.mutate({ link })
                }}
              >
                {t('golinks.restore')}
              </button>
            </td>
          </tr>
        ))}
      </LinkListSection>
      {conflict !== null && (
        <RestoreWithSlug
          link={conflict}
          pending={restore.isPending}
          onRestore={(slug) => restore.mutate({ link: conflict, slug })}
          onClose={() => setConflict(null)}
        />
      )}
    </Page>
  )
}

/** The deleted link's slug is taken now: restore it under another slug, or without one. */
function RestoreWithSlug({
  link,
  pending,
  onRestore,
  onClose,
}: {
  link: DeletedLink
  pending: boolean
  onRestore: (slug: string | null) => void
  onClose: () => void
}) {
  const { t } = useI18n()
  const [slug, setSlug] = useState('')
  return (
    <ModalOverlay
      className="modal-overlay"
      isDismissable
      isOpen
      onOpenChange={(open) => !open && onClose()}
    >
      <Modal className="modal">
        <Dialog className="dialog">
          <Heading slot="title">{t('golinks.slugTakenTitle', { slug: link.slug ?? '' })}</Heading>
          <DialogForm
            className="stack"
            noValidate
            onSubmit={() => {
              onRestore(slug.trim() === '' ? null : slug.trim())
            }}
          >
            <p>{t('golinks.slugTakenText')}</p>
            <SlugField
              value={slug}
              onChange={setSlug}
              organizationId={link.organization_id}
              unchanged={false}
              error={undefined}
            />
            <div className="dialog-actions">
              <button type="button" className="button button-secondary" onClick={onClose}>
                {t('common.cancel')}
              </button>
              <SubmitButton pending={pending}>
                {slug.trim() === '' ? t('golinks.restoreWithoutSlug') : t('golinks.restore')}
              </SubmitButton>
            </div>
          </DialogForm>
        </Dialog>
      </Modal>
    </ModalOverlay>
  )
}
