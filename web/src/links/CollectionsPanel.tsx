/**
 * The collections the person sees, in a panel the Links page opens on demand (above the tags):
 * name and link count, filter the list by one (`?collection=<id>`, in the collection's order),
 * create, edit (name and the teams it is shared with), order its links (drag, or Move up / Move
 * down from the keyboard) and delete (its links are kept). Only what `can_change` allows is
 * offered.
 */
import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query'
import { Link as RouterLink } from '@tanstack/react-router'
import { useEffect, useState } from 'react'
import { Button, Dialog, DialogTrigger, Heading, Modal, ModalOverlay } from 'react-aria-components'
import { client, unwrap } from '../api/client'
import { useI18n } from '../i18n/i18n'
import { announce } from '../ui/announce'
import { ConfirmDialog } from '../ui/dialog'
import { DialogForm } from '../ui/dialog-form'
import { FormError, SubmitButton, TextField, formValues } from '../ui/form'
import { useFormError } from '../ui/use-form-error'
import {
  collectionLinks,
  collectionsQuery,
  refreshCollections,
  setCollectionLinks,
  type Collection,
} from './collection-queries'
import { readableUrl } from './display-url'
import type { Link } from './queries'
import { PanelEntryText, SidePanel } from './SidePanel'
import { TeamPicker } from './TeamPicker'

function EditCollection({ collection }: { collection: Collection }) {
  const { t } = useI18n()
  const queryClient = useQueryClient()
  const formError = useFormError(['name', 'team_ids'])
  const [teamIds, setTeamIds] = useState(collection.team_ids)
  const save = useMutation({
    mutationFn: (name: string) =>
      unwrap(
        client.PATCH('/api/collections/{id}', {
          params: { path: { id: collection.id } },
          body: { name, team_ids: teamIds },
        }),
      ),
  })
  return (
    <DialogTrigger onOpenChange={(open) => open && setTeamIds(collection.team_ids)}>
      <Button
        className="button button-secondary button-small"
        aria-label={t('collections.editNamed', { name: collection.name })}
      >
        {t('collections.edit')}
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
                  save.mutate(formValues(event.currentTarget).name ?? '', {
                    onSuccess: (saved) => {
                      announce(t('collections.saved', { name: saved.name }))
                      void refreshCollections(queryClient).then(close)
                    },
                    onError: (error) => formError.fail(error),
                  })
                }}
              >
                <Heading slot="title">
                  {t('collections.editTitle', { name: collection.name })}
                </Heading>
                <FormError>{formError.general}</FormError>
                <TextField
                  name="name"
                  label={t('field.name')}
                  defaultValue={collection.name}
                  maxLength={200}
                  autoFocus
                  error={formError.at('name')}
                />
                <TeamPicker
                  value={teamIds}
                  onChange={setTeamIds}
                  error={formError.at('team_ids')}
                />
                <div className="dialog-actions">
                  <Button className="button button-secondary" onPress={close}>
                    {t('common.cancel')}
                  </Button>
                  <SubmitButton pending={save.isPending}>{t('collections.save')}</SubmitButton>
                </div>
              </DialogForm>
            )}
          </Dialog>
        </Modal>
      </ModalOverlay>
    </DialogTrigger>
  )
}

/** Moves the item at `from` to `to` (both in range). */
function moved<T>(items: readonly T[], from: number, to: number): T[] {
  const next = [...items]
  const [item] = next.splice(from, 1)
  next.splice(to, 0, item!)
  return next
}

/**
 * The collection's links in order: dragged with a pointer, or moved one place with Move up /
 * Move down (focus stays on the moved link's button); Remove takes a link out. Saved at once.
 */
function OrderLinks({ collection }: { collection: Collection }) {
  const { t } = useI18n()
  const queryClient = useQueryClient()
  const [open, setOpen] = useState(false)
  const links = useQuery({
    queryKey: ['collection-links', collection.id],
    queryFn: () => collectionLinks(collection.id),
    enabled: open,
  })
  const [order, setOrder] = useState<Link[] | null>(null)
  const [dragged, setDragged] = useState<number | null>(null)
  const [failure, setFailure] = useState<string | null>(null)
  // The moved link's button keeps focus; at the end of the list, its other move button takes it.
  const [focusAfter, setFocusAfter] = useState<{ id: string; up: boolean } | null>(null)
  const items = order ?? links.data ?? []
  useEffect(() => {
    if (focusAfter === null) return
    const button = (up: boolean) =>
      document.querySelector<HTMLButtonElement>(
        `[data-move="${up ? 'up' : 'down'}"][data-link="${focusAfter.id}"]`,
      )
    const same = button(focusAfter.up)
    ;(same === null || same.disabled ? button(!focusAfter.up) : same)?.focus()
    setFocusAfter(null)
  }, [order, focusAfter])
  const name = (link: Link) => link.title ?? readableUrl(link.url)

  const store = async (next: Link[], said: string) => {
    const before = items
    setOrder(next)
    setFailure(null)
    try {
      await setCollectionLinks(
        collection.id,
        next.map((link) => link.id),
      )
      announce(said)
      await refreshCollections(queryClient)
    } catch {
      setOrder(before)
      setFailure(t('collections.orderFailed'))
    }
  }
  const move = (from: number, to: number) => {
    if (to < 0 || to >= items.length || from === to) return
    const link = items[from]!
    setFocusAfter({ id: link.id, up: to < from })
    void store(
      moved(items, from, to),
      t('collections.movedTo', { name: name(link), position: to + 1, count: items.length }),
    )
  }
  return (
    <DialogTrigger
      isOpen={open}
      onOpenChange={(next) => {
        setOpen(next)
        setOrder(null)
        setFailure(null)
      }}
    >
      <Button
        className="button button-secondary button-small"
        aria-label={t('collections.orderNamed', { name: collection.name })}
      >
        {t('collections.order')}
      </Button>
      <ModalOverlay className="modal-overlay" isDismissable>
        <Modal className="modal modal-wide">
          <Dialog className="dialog">
            {({ close }) => (
              <>
                <Heading slot="title">
                  {t('collections.orderTitle', { name: collection.name })}
                </Heading>
                <p className="muted">{t('collections.orderHelp')}</p>
                {failure !== null && (
                  <p className="form-error" role="alert">
                    {failure}
                  </p>
                )}
                {links.isSuccess && items.length === 0 ? (
                  <p className="empty">{t('collections.noLinks')}</p>
                ) : (
                  <ol className="order-list" data-testid="collection-order">
                    {items.map((link, index) => (
                      <li
                        key={link.id}
                        draggable
                        className={dragged === index ? 'dragging' : undefined}
                        onDragStart={(event) => {
                          setDragged(index)
                          event.dataTransfer.effectAllowed = 'move'
                          event.dataTransfer.setData('text/plain', link.id)
                        }}
                        onDragOver={(event) => event.preventDefault()}
                        onDrop={(event) => {
                          event.preventDefault()
                          if (dragged !== null) move(dragged, index)
                          setDragged(null)
                        }}
                        onDragEnd={() => setDragged(null)}
                      >
                        <span className="drag-handle" aria-hidden="true">
                          ⠿
                        </span>
                        <span className="order-name" dir="auto">
                          {name(link)}
                        </span>
                        <span className="tag-actions">
                          <button
                            type="button"
                            className="button button-secondary button-small"
                            aria-label={t('collections.moveUpNamed', { name: name(link) })}
                            data-move="up"
                            data-link={link.id}
                            disabled={index === 0}
                            onClick={() => move(index, index - 1)}
                          >
                            {t('collections.moveUp')}
                          </button>
                          <button
                            type="button"
                            className="button button-secondary button-small"
                            aria-label={t('collections.moveDownNamed', { name: name(link) })}
                            data-move="down"
                            data-link={link.id}
                            disabled={index === items.length - 1}
                            onClick={() => move(index, index + 1)}
                          >
                            {t('collections.moveDown')}
                          </button>
                          <button
                            type="button"
                            className="button button-secondary button-small"
                            aria-label={t('collections.removeNamed', { name: name(link) })}
                            onClick={() =>
                              void store(
                                items.filter((other) => other.id !== link.id),
                                t('collections.removed', { name: name(link) }),
                              )
                            }
                          >
                            {t('collections.remove')}
                          </button>
                        </span>
                      </li>
                    ))}
                  </ol>
                )}
                <div className="dialog-actions">
                  <Button className="button button-primary" onPress={close}>
                    {t('collections.done')}
                  </Button>
                </div>
              </>
            )}
          </Dialog>
        </Modal>
      </ModalOverlay>
    </DialogTrigger>
  )
}

export function CollectionsPanel({ activeId }: { activeId: string | undefined }) {
  const { t } = useI18n()
  const queryClient = useQueryClient()
  const collections = useQuery(collectionsQuery)
  const formError = useFormError(['name'])
  const create = useMutation({
    mutationFn: (name: string) => unwrap(client.POST('/api/collections', { body: { name } })),
    onSuccess: async (collection) => {
      announce(t('collections.created', { name: collection.name }))
      formError.form.current?.reset()
      await refreshCollections(queryClient)
    },
    onError: (error) => formError.fail(error),
  })
  const remove = async (collection: Collection) => {
    await unwrap(
      client.DELETE('/api/collections/{id}', { params: { path: { id: collection.id } } }),
    )
    announce(t('collections.deleted', { name: collection.name }))
    await refreshCollections(queryClient)
  }
  const items = collections.data?.items ?? []
  return (
    <SidePanel
      id="collections-panel"
      title={t('collections.title')}
      create={{
        formError,
        label: t('collections.new'),
        submit: t('collections.create'),
        maxLength: 200,
        pending: create.isPending,
        onCreate: (name) => create.mutate(name),
      }}
    >
      {collections.isSuccess && items.length === 0 ? (
        <p className="empty">{t('collections.empty')}</p>
      ) : (
        <ul className="tag-list" data-testid="collections">
          {items.map((collection) => (
            <li key={collection.id}>
              <RouterLink
                to="/links"
                search={{ collection: activeId === collection.id ? undefined : collection.id }}
                className={activeId === collection.id ? 'tag-filter active' : 'tag-filter'}
                aria-current={activeId === collection.id ? 'true' : undefined}
              >
                <PanelEntryText
                  name={collection.name}
                  count={collection.link_count}
                  countText={t('collections.linkCount', { count: collection.link_count })}
                />
              </RouterLink>
              {collection.team_ids.length > 0 && (
                <span className="muted collection-shared">
                  {t('collections.sharedWithTeams', { count: collection.team_ids.length })}
                </span>
              )}
              {collection.can_change && (
                <span className="tag-actions">
                  <EditCollection collection={collection} />
                  <OrderLinks collection={collection} />
                  <ConfirmDialog
                    trigger={t('collections.delete')}
                    triggerLabel={t('collections.deleteNamed', { name: collection.name })}
                    title={t('collections.deleteTitle', { name: collection.name })}
                    confirmLabel={t('collections.deleteConfirm')}
                    danger
                    onConfirm={() => remove(collection)}
                  >
                    <p>{t('collections.deleteText', { count: collection.link_count })}</p>
                  </ConfirmDialog>
                </span>
              )}
            </li>
          ))}
        </ul>
      )}
    </SidePanel>
  )
}

/**
 * "Add to collection": the collections the person may change; the link goes last in the one
 * chosen (a link already in it stays where it is).
 */
export function AddToCollectionDialog({ link, onClose }: { link: Link; onClose: () => void }) {
  const { t } = useI18n()
  const queryClient = useQueryClient()
  const collections = useQuery(collectionsQuery)
  const formError = useFormError(['collection'])
  const choices = (collections.data?.items ?? []).filter((collection) => collection.can_change)
  const add = useMutation({
    mutationFn: async (collection: Collection) => {
      const ids = (await collectionLinks(collection.id)).map((other) => other.id)
      if (!ids.includes(link.id)) await setCollectionLinks(collection.id, [...ids, link.id])
      return collection
    },
    onSuccess: async (collection) => {
      announce(
        t('collections.added', { name: link.title ?? link.url, collection: collection.name }),
      )
      await refreshCollections(queryClient)
      onClose()
    },
    onError: (error) => formError.fail(error),
  })
  return (
    <ModalOverlay
      className="modal-overlay"
      isDismissable
      isOpen
      onOpenChange={(open) => !open && onClose()}
    >
      <Modal className="modal">
        <Dialog className="dialog">
          <Heading slot="title">
            {t('collections.addTitle', { name: link.title ?? readableUrl(link.url) })}
          </Heading>
          {collections.isSuccess && choices.length === 0 ? (
            <>
              <p>{t('collections.noneToAdd')}</p>
              <div className="dialog-actions">
                <button type="button" className="button button-primary" onClick={onClose}>
                  {t('collections.done')}
                </button>
              </div>
            </>
          ) : (
            <DialogForm
              ref={formError.form}
              noValidate
              onSubmit={(event) => {
                formError.clear()
                const id = formValues(event.currentTarget).collection
                const chosen = choices.find((collection) => collection.id === id)
                if (chosen !== undefined) add.mutate(chosen)
              }}
            >
              <FormError>{formError.general}</FormError>
              <div className="field">
                <label htmlFor="add-to-collection">{t('collections.collection')}</label>
                <select id="add-to-collection" name="collection" autoFocus>
                  {choices.map((collection) => (
                    <option key={collection.id} value={collection.id}>
                      {collection.name}
                    </option>
                  ))}
                </select>
              </div>
              <div className="dialog-actions">
                <button type="button" className="button button-secondary" onClick={onClose}>
                  {t('common.cancel')}
                </button>
                <SubmitButton pending={add.isPending}>{t('collections.add')}</SubmitButton>
              </div>
            </DialogForm>
          )}
        </Dialog>
      </Modal>
    </ModalOverlay>
  )
}
