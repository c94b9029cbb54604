/**
 * "Suggest tags" for the selected links without tags (POST /api/links/suggestions/tags): each
 * link with its suggested tags as chips, all marked; a click leaves a tag out (or takes it back),
 * and "Apply" adds only the marked ones — new tags are created then, not before — through the
 * bulk `add_tag` action, one request per tag. Links that already have tags are left out, said in
 * one line. A refusal closes the dialog and is said on the page (`onFailed`).
 */
import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query'
import { useEffect, useState } from 'react'
import { Dialog, Heading, Modal, ModalOverlay } from 'react-aria-components'
import { client, unwrap } from '../api/client'
import { ApiError } from '../api/errors'
import { useI18n } from '../i18n/i18n'
import { announce } from '../ui/announce'
import { DialogForm } from '../ui/dialog-form'
import { SubmitButton } from '../ui/form'
import { readableUrl } from './display-url'
import type { Link, Tag } from './queries'

/** The most links one request suggests for (the service's limit). */
export const MAX_SUGGESTED_LINKS = 100

interface Item {
  link_id: string
  source: 'ai' | 'local'
  tags: string[]
  new_tags: string[]
}

const choiceKey = (linkId: string, tag: string) => `${linkId}\n${tag.toLowerCase()}`

/** The person's tags by lower-case name, read page by page (the picker's list may be cut). */
async function allTagIds(): Promise<Map<string, string>> {
  const ids = new Map<string, string>()
  let cursor: string | undefined
  do {
    const page = await unwrap(
      client.GET('/api/tags', { params: { query: { limit: 200, ...(cursor && { cursor }) } } }),
    )
    for (const tag of page.items) ids.set(tag.name.toLowerCase(), tag.id)
    cursor = page.next_cursor ?? undefined
  } while (cursor !== undefined)
  return ids
}

/** The id of each name (lower case), creating the tags that do not exist yet. */
async function tagIdsFor(names: Map<string, string>, known: readonly Tag[]) {
  const ids = new Map(known.map((tag) => [tag.name.toLowerCase(), tag.id]))
  if ([...names.keys()].some((key) => !ids.has(key)))
    for (const [key, id] of await allTagIds()) ids.set(key, id)
  for (const [key, name] of names) {
    if (ids.has(key)) continue
    try {
      ids.set(key, (await unwrap(client.POST('/api/tags', { body: { name } }))).id)
    } catch (error) {
      // Created meanwhile (in another tab): use it.
      if (!(error instanceof ApiError && error.reason === 'ALREADY_EXISTS')) throw error
      const again = (await allTagIds()).get(key)
      if (again === undefined) throw error
      ids.set(key, again)
    }
  }
  return ids
}

export function BulkSuggestTags({
  selected,
  tags,
  onClose,
  onFailed,
}: {
  selected: readonly Link[]
  tags: readonly Tag[]
  onClose: () => void
  onFailed: (failure: unknown) => void
}) {
  const { t } = useI18n()
  const queryClient = useQueryClient()
  const untagged = selected.filter((link) => link.tag_ids.length === 0)
  const leftOut = selected.length - untagged.length
  const ids = untagged.map((link) => link.id)
  const [leftAside, setLeftAside] = useState<ReadonlySet<string>>(new Set())

  const suggestions = useQuery({
    queryKey: ['link-tag-suggestions', ids],
    enabled: ids.length > 0,
    retry: false,
    gcTime: 0,
    queryFn: ({ signal }) =>
      unwrap(
        client.POST('/api/links/suggestions/tags', { body: { link_ids: ids }, signal }),
      ) as Promise<{ items: Item[] }>,
  })
  const items = suggestions.data?.items
  useEffect(() => {
    if (items !== undefined) announce(t('links.bulkSuggestReady'))
  }, [items, t])
  useEffect(() => {
    if (suggestions.error !== null) onFailed(suggestions.error)
  }, [suggestions.error, onFailed])

  const chosen = (items ?? []).flatMap((item) =>
    item.tags
      .filter((tag) => !leftAside.has(choiceKey(item.link_id, tag)))
      .map((tag) => ({ linkId: item.link_id, tag })),
  )

  const apply = useMutation({
    mutationFn: async () => {
      const names = new Map(chosen.map(({ tag }) => [tag.toLowerCase(), tag]))
      const tagIds = await tagIdsFor(names, tags)
      const linksByTag = new Map<string, string[]>()
      for (const { linkId, tag } of chosen) {
        const tagId = tagIds.get(tag.toLowerCase())!
        linksByTag.set(tagId, [...(linksByTag.get(tagId) ?? []), linkId])
      }
      for (const [tagId, linkIds] of linksByTag)
        await unwrap(
          client.POST('/api/links/bulk', {
            body: { action: 'add_tag', tag_id: tagId, link_ids: linkIds },
          }),
        )
      return new Set(chosen.map(({ linkId }) => linkId)).size
    },
    onSuccess: async (count) => {
      announce(t('links.bulkSuggestDone', { count }))
      await queryClient.invalidateQueries({ queryKey: ['links'] })
      await queryClient.invalidateQueries({ queryKey: ['tags'] })
      onClose()
    },
    onError: onFailed,
  })

  const toggle = (key: string) =>
    setLeftAside((current) => {
      const next = new Set(current)
      if (!next.delete(key)) next.add(key)
      return next
    })
  const byId = new Map(untagged.map((link) => [link.id, link]))

  return (
    <ModalOverlay
      className="modal-overlay"
      isDismissable
      isOpen
      onOpenChange={(isOpen) => !isOpen && onClose()}
    >
      <Modal className="modal modal-wide">
        <Dialog className="dialog" data-testid="bulk-suggest-tags">
          <Heading slot="title">
            {t('links.bulkSuggestTitle', { count: untagged.length })}
            {items?.some((item) => item.source === 'ai') && (
              <span className="badge" title={t('links.suggestionsAiMark')}>
                {t('links.suggestionsAi')}
              </span>
            )}
          </Heading>
          <DialogForm
            className="stack"
            onSubmit={() => {
              if (chosen.length > 0) apply.mutate()
            }}
          >
            {leftOut > 0 && (
              <p className="muted">{t('links.bulkSuggestLeftOut', { count: leftOut })}</p>
            )}
            {untagged.length === 0 ? null : items === undefined ? (
              <p role="status">{t('links.bulkSuggestLoading')}</p>
            ) : (
              <>
                <p className="muted">{t('links.bulkSuggestHelp')}</p>
                <ul className="plain-list stack bulk-suggestions">
                  {items.map((item) => {
                    const link = byId.get(item.link_id)
                    const name =
                      link === undefined ? item.link_id : (link.title ?? readableUrl(link.url))
                    return (
                      <li key={item.link_id} className="bulk-suggestion">
                        <span className="bulk-suggestion-name" id={`suggested-for-${item.link_id}`}>
                          {name}
                        </span>
                        {item.tags.length === 0 ? (
                          <span className="muted">{t('links.bulkSuggestEmpty')}</span>
                        ) : (
                          <ul
                            className="chips"
                            role="list"
                            aria-labelledby={`suggested-for-${item.link_id}`}
                          >
                            {item.tags.map((tag) => {
                              const key = choiceKey(item.link_id, tag)
                              return (
                                <li key={key}>
                                  <button
                                    type="button"
                                    className="chip chip-toggle"
                                    aria-pressed={!leftAside.has(key)}
                                    onClick={() => toggle(key)}
                                  >
                                    {t('links.suggestedTag', { tag })}
                                    {item.new_tags.includes(tag) && (
                                      <span className="badge">{t('links.suggestedTagNew')}</span>
                                    )}
                                  </button>
                                </li>
                              )
                            })}
                          </ul>
                        )}
                      </li>
                    )
                  })}
                </ul>
              </>
            )}
            <div className="dialog-actions">
              <button type="button" className="button button-secondary" onClick={onClose}>
                {t('common.cancel')}
              </button>
              {chosen.length > 0 && (
                <SubmitButton pending={apply.isPending}>
                  {t('links.bulkSuggestApply', { count: chosen.length })}
                </SubmitButton>
              )}
            </div>
          </DialogForm>
        </Dialog>
      </Modal>
    </ModalOverlay>
  )
}
