/**
 * What the Links page does with several selected links, through POST /api/links/bulk:
 * add or remove any one of the person's tags (found by name as one types), share with an
 * organization (or make personal), delete — the confirmation names the count —, and suggest
 * tags for up to 100 of them (BulkSuggestTags, which explains the limit beyond). Share and delete
 * are offered only when every selected link may be changed (`can_change`) — otherwise the bar
 * says why they are missing; deleted links stay restorable for RESTORE_DAYS (the service's
 * window); a refusal closes the dialog and is said on the page (`onFailed`).
 */
import { useMutation, useQueryClient } from '@tanstack/react-query'
import { useState } from 'react'
import { Dialog, Heading, Modal, ModalOverlay } from 'react-aria-components'
import { client, unwrap } from '../api/client'
import { useI18n } from '../i18n/i18n'
import { announce } from '../ui/announce'
import { DialogForm } from '../ui/dialog-form'
import { SelectField, SubmitButton } from '../ui/form'
import { BulkSuggestTags, MAX_SUGGESTED_LINKS } from './BulkSuggestTags'
import { ownerOptions } from './owner-options'
import type { Link, Organization, Tag } from './queries'
import { TagComboBox, type TagOption } from './TagComboBox'

type Action = 'add_tag' | 'remove_tag' | 'share' | 'delete'

/** How long a deleted link can be restored from "Recently deleted" (the service's RESTORE_DAYS). */
const RESTORE_DAYS = 30

export function BulkActions({
  selected,
  tags,
  organizations,
  onDone,
  onFailed,
}: {
  selected: readonly Link[]
  tags: readonly Tag[]
  organizations: readonly Organization[]
  onDone: () => void
  onFailed: (failure: unknown) => void
}) {
  const { t } = useI18n()
  const queryClient = useQueryClient()
  const [open, setOpen] = useState<Action | null>(null)
  const [choice, setChoice] = useState('')
  const [tag, setTag] = useState<TagOption | undefined>(undefined)
  const [suggesting, setSuggesting] = useState(false)
  const count = selected.length
  const unchangeable = selected.filter((link) => !link.can_change).length
  const mayChangeAll = unchangeable === 0

  const run = useMutation({
    mutationFn: (action: Action) =>
      unwrap(
        client.POST('/api/links/bulk', {
          body: {
            action,
            link_ids: selected.map((link) => link.id),
            ...((action === 'add_tag' || action === 'remove_tag') && { tag_id: tag?.id ?? '' }),
            ...(action === 'share' && { organization_id: choice === '' ? null : choice }),
          },
        }),
      ),
    onSuccess: async (result) => {
      announce(t(`links.bulkDone.${result.action}`, { count: result.count }))
      setOpen(null)
      await queryClient.invalidateQueries({ queryKey: ['links'] })
      await queryClient.invalidateQueries({ queryKey: ['tags'] })
      // The selection stays for the next action on the same links; deleted links leave it.
      if (result.action === 'delete') onDone()
    },
    onError: (failure) => {
      setOpen(null)
      onFailed(failure)
    },
  })

  const start = (action: Action) => {
    run.reset()
    setChoice('')
    setTag(tags[0])
    setOpen(action)
  }

  return (
    <div className="bulk-bar" role="region" aria-label={t('links.bulkRegion')}>
      <span className="bulk-count" aria-live="polite">
        {t('links.selectedCount', { count })}
      </span>
      <div className="bulk-buttons">
        {count > MAX_SUGGESTED_LINKS ? (
          <>
            <button
              type="button"
              className="button button-secondary button-small"
              aria-disabled="true"
              aria-describedby="bulk-suggest-limit"
            >
              {t('links.bulkSuggestTags')}
            </button>
            <span id="bulk-suggest-limit" className="muted">
              {t('links.bulkSuggestLimit', { max: MAX_SUGGESTED_LINKS })}
            </span>
          </>
        ) : (
          <button
            type="button"
            className="button button-secondary button-small"
            onClick={() => setSuggesting(true)}
          >
            {t('links.bulkSuggestTags')}
          </button>
        )}
        {tags.length > 0 && (
          <>
            <button
              type="button"
              className="button button-secondary button-small"
              onClick={() => start('add_tag')}
            >
              {t('links.bulkAddTag')}
            </button>
            <button
              type="button"
              className="button button-secondary button-small"
              onClick={() => start('remove_tag')}
            >
              {t('links.bulkRemoveTag')}
            </button>
          </>
        )}
        {mayChangeAll && (
          <>
            <button
              type="button"
              className="button button-secondary button-small"
              onClick={() => start('share')}
            >
              {t('links.bulkShare')}
            </button>
            <button
              type="button"
              className="button button-danger-outline button-small"
              onClick={() => start('delete')}
            >
              {t('links.bulkDelete')}
            </button>
          </>
        )}
        <button type="button" className="button button-ghost button-small" onClick={onDone}>
          {t('links.clearSelection')}
        </button>
      </div>
      {!mayChangeAll && (
        <p className="bulk-why muted" data-testid="bulk-why">
          {tags.length > 0
            ? t('links.bulkNotYours', { count: unchangeable })
            : t('links.bulkNothing', { count: unchangeable })}
        </p>
      )}
      {suggesting && (
        <BulkSuggestTags
          selected={selected}
          tags={tags}
          onClose={() => setSuggesting(false)}
          onFailed={(failure) => {
            setSuggesting(false)
            onFailed(failure)
          }}
        />
      )}
      {open !== null && (
        <ModalOverlay
          className="modal-overlay"
          isDismissable
          isOpen
          onOpenChange={(isOpen) => !isOpen && setOpen(null)}
        >
          <Modal className="modal">
            <Dialog className="dialog" role={open === 'delete' ? 'alertdialog' : 'dialog'}>
              <Heading slot="title">{t(`links.bulkTitle.${open}`, { count })}</Heading>
              <DialogForm
                className="stack"
                onSubmit={() => {
                  run.mutate(open)
                }}
              >
                {open === 'delete' ? (
                  <>
                    <p>{t('links.bulkDeleteText', { count })}</p>
                    <p>{t('links.bulkRestorable', { count, days: RESTORE_DAYS })}</p>
                  </>
                ) : open === 'share' ? (
                  <SelectField
                    name="organization_id"
                    label={t('links.sharedWith')}
                    value={choice}
                    onChange={(event) => setChoice(event.target.value)}
                    options={ownerOptions(t('links.onlyMe'), organizations)}
                  />
                ) : (
                  <TagComboBox
                    className="field"
                    label={t('links.filterTag')}
                    tags={tags}
                    chosen={tag}
                    emptyText={t('links.tagFilterNone')}
                    onChoose={setTag}
                  />
                )}
                <div className="dialog-actions">
                  <button
                    type="button"
                    className="button button-secondary"
                    onClick={() => setOpen(null)}
                  >
                    {t('common.cancel')}
                  </button>
                  <SubmitButton
                    pending={run.isPending}
                    variant={open === 'delete' ? 'danger' : 'primary'}
                  >
                    {t(`links.bulkConfirm.${open}`, { count })}
                  </SubmitButton>
                </div>
              </DialogForm>
            </Dialog>
          </Modal>
        </ModalOverlay>
      )}
    </div>
  )
}
