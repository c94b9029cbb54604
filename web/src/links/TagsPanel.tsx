/**
 * The person's tags, in a panel the Links page opens on demand: counts, filter by one
 * (by its name in the address), create, rename, delete (confirmed). The list shows the first
 * tags by name and scrolls inside a bounded height; "Find a tag" asks the API as one types, so any
 * of thousands of tags (an import's) is found.
 */
import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query'
import { useState } from 'react'
import { Link as RouterLink } from '@tanstack/react-router'
import { Button, Dialog, DialogTrigger, Heading, Modal, ModalOverlay } from 'react-aria-components'
import { client, unwrap } from '../api/client'
import { ApiError } from '../api/errors'
import { useI18n } from '../i18n/i18n'
import { announce } from '../ui/announce'
import { ConfirmDialog } from '../ui/dialog'
import { DialogForm } from '../ui/dialog-form'
import { FormError, SubmitButton, TextField, formValues } from '../ui/form'
import { useFormError } from '../ui/use-form-error'
import { atField } from './field-error'
import { PanelEntryText, SidePanel } from './SidePanel'
import { tagSearchQuery, tagsQuery, type Tag } from './queries'
import { useDebounced } from './use-debounced'

/** A taken name is a 409 naming the field: shown at the field, in the person's language. */
function atName(error: unknown, text: string): unknown {
  return error instanceof ApiError && error.reason === 'ALREADY_EXISTS'
    ? atField(error, 'name', text)
    : error
}

function useRefreshTags() {
  const queryClient = useQueryClient()
  return async () => {
    await queryClient.invalidateQueries({ queryKey: ['tags'] })
    await queryClient.invalidateQueries({ queryKey: ['links'] })
  }
}

function RenameTag({ tag }: { tag: Tag }) {
  const { t } = useI18n()
  const refresh = useRefreshTags()
  const formError = useFormError(['name'])
  const rename = useMutation({
    mutationFn: (name: string) =>
      unwrap(client.PATCH('/api/tags/{id}', { params: { path: { id: tag.id } }, body: { name } })),
  })
  return (
    <DialogTrigger>
      <Button
        className="button button-secondary button-small"
        aria-label={t('links.renameTagNamed', { name: tag.name })}
      >
        {t('links.renameTag')}
      </Button>
      <ModalOverlay className="modal-overlay" isDismissable>
        <Modal className="modal">
          <Dialog className="dialog">
            {({ close }) => (
              <DialogForm
                ref={formError.form}
                noValidate
                onSubmit={(event) => {
                  formError.clear()
                  const name = formValues(event.currentTarget).name ?? ''
                  rename.mutate(name, {
                    onSuccess: (saved) => {
                      announce(t('links.tagRenamed', { name: saved.name }))
                      void refresh().then(close)
                    },
                    onError: (error) => formError.fail(atName(error, t('links.tagTaken'))),
                  })
                }}
              >
                <Heading slot="title">{t('links.renameTagTitle', { name: tag.name })}</Heading>
                <FormError>{formError.general}</FormError>
                <TextField
                  name="name"
                  label={t('links.tagName')}
                  defaultValue={tag.name}
                  maxLength={64}
                  autoFocus
                  error={formError.at('name')}
                />
                <div className="dialog-actions">
                  <Button className="button button-secondary" onPress={close}>
                    {t('common.cancel')}
                  </Button>
                  <SubmitButton pending={rename.isPending}>
                    {t('links.renameTagConfirm')}
                  </SubmitButton>
                </div>
              </DialogForm>
            )}
          </Dialog>
        </Modal>
      </ModalOverlay>
    </DialogTrigger>
  )
}

export function TagsPanel({ activeTag }: { activeTag: string | undefined }) {
  const { t } = useI18n()
  const tags = useQuery(tagsQuery)
  const refresh = useRefreshTags()
  const formError = useFormError(['name'])
  const create = useMutation({
    mutationFn: (name: string) => unwrap(client.POST('/api/tags', { body: { name } })),
    onSuccess: async (tag) => {
      announce(t('links.tagCreated', { name: tag.name }))
      formError.form.current?.reset()
      await refresh()
    },
    onError: (error) => formError.fail(atName(error, t('links.tagTaken'))),
  })
  const remove = async (tag: Tag) => {
    await unwrap(client.DELETE('/api/tags/{id}', { params: { path: { id: tag.id } } }))
    announce(t('links.tagDeleted', { name: tag.name }))
    await refresh()
  }
  const [find, setFind] = useState('')
  const all = tags.data?.items ?? []
  const more = (tags.data?.next_cursor ?? null) !== null
  const needle = find.trim().toLowerCase()
  const settled = useDebounced(find.trim())
  const found = useQuery({ ...tagSearchQuery(settled), enabled: settled !== '' })
  const items =
    needle === ''
      ? all
      : (found.data?.items ?? all).filter((tag) => tag.name.toLowerCase().includes(needle))
  return (
    <SidePanel
      id="tags-panel"
      title={t('links.tags')}
      create={{
        formError,
        label: t('links.newTag'),
        submit: t('links.createTag'),
        maxLength: 64,
        pending: create.isPending,
        onCreate: (name) => create.mutate(name),
      }}
    >
      {all.length > 0 && (
        <div className="field tag-find">
          <label htmlFor="tag-find">{t('links.findTag')}</label>
          <input
            id="tag-find"
            type="search"
            value={find}
            maxLength={64}
            aria-controls="tag-list"
            onChange={(event) => setFind(event.target.value)}
          />
          <p className="field-help" aria-live="polite">
            {needle === ''
              ? more
                ? t('links.tagsFirst', { count: all.length })
                : t('links.tagsCount', { count: all.length })
              : (found.data?.next_cursor ?? null) !== null
                ? t('links.tagsFoundFirst', { count: items.length })
                : t('links.tagsMatching', { count: items.length })}
          </p>
        </div>
      )}
      {tags.isSuccess && all.length === 0 ? (
        <p className="empty">{t('links.tagsEmpty')}</p>
      ) : (
        <ul id="tag-list" className="tag-list" data-testid="tags">
          {items.map((tag) => (
            <li key={tag.id}>
              <RouterLink
                to="/links"
                search={(previous) => ({
                  ...previous,
                  tag: activeTag === tag.name ? undefined : tag.name,
                  cursor: undefined,
                })}
                className={activeTag === tag.name ? 'tag-filter active' : 'tag-filter'}
                aria-current={activeTag === tag.name ? 'true' : undefined}
              >
                <PanelEntryText
                  name={tag.name}
                  count={tag.link_count}
                  countText={t('links.tagLinkCount', { count: tag.link_count })}
                />
              </RouterLink>
              <span className="tag-actions">
                <RenameTag tag={tag} />
                <ConfirmDialog
                  trigger={t('links.deleteTag')}
                  triggerLabel={t('links.deleteTagNamed', { name: tag.name })}
                  title={t('links.deleteTagTitle', { name: tag.name })}
                  confirmLabel={t('links.deleteTagConfirm')}
                  danger
                  onConfirm={() => remove(tag)}
                >
                  <p>{t('links.deleteTagText', { count: tag.link_count })}</p>
                </ConfirmDialog>
              </span>
            </li>
          ))}
        </ul>
      )}
    </SidePanel>
  )
}
