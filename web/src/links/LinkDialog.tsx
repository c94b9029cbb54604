/**
 * Create or edit a link in a dialog: URL, title, slug (rules and live availability), the person's
 * own tags, and who it belongs to (only them, or one of their organizations). The URL is
 * shown readable (IDN, Unicode paths) and completed with https:// when typed without a scheme; the
 * title can be fetched from the page (by the service); tags are found and created inline; a taken
 * slug is said once, and a refusal for a slug goes away when the slug changes. Whoever may change
 * the link chooses the teams it is shared with.
 */
import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query'
import { useState } from 'react'
import { readableUrl, withScheme } from './display-url'
import { TagPicker } from './TagPicker'
import { Dialog, Heading, Modal, ModalOverlay } from 'react-aria-components'
import { client, unwrap } from '../api/client'
import { ApiError } from '../api/errors'
import { useI18n } from '../i18n/i18n'
import { announce } from '../ui/announce'
import { DialogForm } from '../ui/dialog-form'
import { FormError, SelectField, SubmitButton, TextField, formValues } from '../ui/form'
import { useFormError } from '../ui/use-form-error'
import { atField } from './field-error'
import { ownerOptions } from './owner-options'
import { organizationsQuery, tagsQuery, type Link } from './queries'
import { SlugField } from './SlugField'
import { ClicksChart } from './ClicksChart'
import { GoPreview } from './GoPreview'
import { Suggestions } from './Suggestions'
import { DuplicateHint } from './DuplicateHint'
import { TeamPicker } from './TeamPicker'

const FIELDS = ['url', 'title', 'slug', 'tag_ids', 'organization_id', 'team_ids'] as const

export function LinkDialog({
  link,
  initialSlug,
  onClose,
}: {
  link: Link | null
  initialSlug?: string
  onClose: () => void
}) {
  const { t } = useI18n()
  const queryClient = useQueryClient()
  const tags = useQuery(tagsQuery)
  const organizations = useQuery(organizationsQuery)
  const formError = useFormError(FIELDS)
  const [slug, setSlug] = useState(link?.slug ?? initialSlug ?? '')
  const [url, setUrl] = useState(link === null ? '' : readableUrl(link.url))
  const [title, setTitle] = useState(link?.title ?? '')
  const [tagIds, setTagIds] = useState<string[]>(link?.tag_ids ?? [])
  const [teamIds, setTeamIds] = useState<string[]>(link?.team_ids ?? [])
  const mayShare = link === null || link.can_change
  // The slug the API refused: its message shows only while the slug is still that one.
  const [refusedSlug, setRefusedSlug] = useState<string | null>(null)
  const [organizationId, setOrganizationId] = useState<string | null>(link?.organization_id ?? null)
  // Suggested tags that do not exist yet: created only when the link is saved.
  const [newTags, setNewTags] = useState<string[]>([])
  const tagItems = tags.data?.items ?? []
  const addSuggestedTag = (name: string, isNew: boolean) => {
    const existing = tagItems.find((tag) => tag.name.toLowerCase() === name.toLowerCase())
    if (existing !== undefined)
      setTagIds((ids) => (ids.includes(existing.id) ? ids : [...ids, existing.id]))
    else if (isNew) setNewTags((names) => (names.includes(name) ? names : [...names, name]))
  }

  const fetchTitle = useMutation({
    mutationFn: () =>
      unwrap(client.POST('/api/links/fetch-title', { body: { url: withScheme(url) } })),
    onMutate: () => formError.clear(),
    onSuccess: (fetched) => {
      if (fetched.title === null) formError.fail(atField(null, 'title', t('links.fetchTitleNone')))
      else {
        setTitle(fetched.title)
        announce(t('links.fetchTitleDone', { title: fetched.title }))
      }
    },
    onError: (error) =>
      formError.fail(
        error instanceof ApiError && error.reason === 'UPSTREAM_FAILED'
          ? atField(error, 'title', t('links.fetchTitleFailed'))
          : error,
      ),
  })

  const save = useMutation({
    mutationFn: async ({ values }: { values: Record<string, string> }) => {
      const created = []
      for (const name of newTags)
        created.push((await unwrap(client.POST('/api/tags', { body: { name } }))).id)
      const body = {
        url: withScheme(values.url ?? ''),
        title: values.title?.trim() ? values.title.trim() : null,
        slug: slug.trim() === '' ? null : slug.trim(),
        tag_ids: [...tagIds, ...created],
        organization_id: organizationId,
        ...(mayShare && { team_ids: teamIds }),
      }
      if (link === null) return unwrap(client.POST('/api/links', { body }))
      return unwrap(client.PATCH('/api/links/{id}', { params: { path: { id: link.id } }, body }))
    },
    onSuccess: async (saved) => {
      announce(
        t(link === null ? 'links.created' : 'links.saved', { name: saved.title ?? saved.url }),
      )
      await queryClient.invalidateQueries({ queryKey: ['links'] })
      await queryClient.invalidateQueries({ queryKey: ['tags'] })
      onClose()
    },
    onError: (error) => {
      // A taken slug is a 409 whose details name the field: shown there, in the person's language.
      // Any refusal (a taken slug or one not in the documented form) is remembered with the slug it
      // was for.
      setRefusedSlug(slug.trim())
      if (error instanceof ApiError && error.reason === 'ALREADY_EXISTS') {
        formError.fail(atField(error, 'slug', t('links.slugTaken', { slug: slug.trim() })))
      } else formError.fail(error)
    },
  })

  // The API's message for the slug shows only while the slug is still the one it refused.
  const slugError =
    refusedSlug !== null && refusedSlug === slug.trim() ? formError.at('slug') : undefined

  return (
    <ModalOverlay
      className="modal-overlay"
      isDismissable
      isOpen
      onOpenChange={(open) => !open && onClose()}
    >
      <Modal className="modal modal-wide">
        <Dialog className="dialog">
          <Heading slot="title">
            {link === null
              ? t('links.createTitle')
              : t('links.editTitle', { name: link.title ?? link.url })}
          </Heading>
          <DialogForm
            ref={formError.form}
            noValidate
            className="stack"
            onSubmit={(event) => {
              formError.clear()
              const values = formValues(event.currentTarget)
              const completed = withScheme(values.url ?? '')
              if (completed !== url) setUrl(completed)
              save.mutate({ values: { ...values, url: completed } })
            }}
          >
            <FormError>{formError.general}</FormError>
            <TextField
              name="url"
              type="text"
              inputMode="url"
              autoComplete="url"
              spellCheck={false}
              label={t('links.url')}
              help={t('links.urlHelp')}
              value={url}
              onChange={(event) => setUrl(event.target.value)}
              onBlur={() => setUrl((current) => withScheme(current))}
              required
              autoFocus
              maxLength={2048}
              error={formError.at('url')}
            />
            {link === null && <DuplicateHint url={url} />}
            {link === null && (
              <Suggestions
                url={url}
                organizationId={organizationId}
                title={title}
                slug={slug}
                tagNames={[
                  ...tagItems.filter((tag) => tagIds.includes(tag.id)).map((tag) => tag.name),
                  ...newTags,
                ]}
                onTitle={setTitle}
                onSlug={setSlug}
                onTag={addSuggestedTag}
              />
            )}
            <div className="title-row">
              <TextField
                name="title"
                label={t('links.titleField')}
                value={title}
                onChange={(event) => setTitle(event.target.value)}
                maxLength={200}
                error={formError.at('title')}
              />
              <button
                type="button"
                className="button button-secondary"
                aria-busy={fetchTitle.isPending || undefined}
                onClick={() => {
                  if (fetchTitle.isPending) return
                  if (url.trim() === '')
                    formError.fail(atField(null, 'url', t('links.fetchTitleNeedsUrl')))
                  else fetchTitle.mutate()
                }}
              >
                {t('links.fetchTitle')}
                {fetchTitle.isPending && (
                  <span className="visually-hidden"> {t('common.working')}</span>
                )}
                {fetchTitle.isPending && <span className="spinner" aria-hidden="true" />}
              </button>
            </div>
            <SlugField
              value={slug}
              onChange={setSlug}
              organizationId={organizationId}
              unchanged={
                link !== null &&
                link.slug !== null &&
                link.slug.toLowerCase() === slug.trim().toLowerCase() &&
                link.organization_id === organizationId
              }
              error={slugError}
              refused={slugError !== undefined}
            />
            <GoPreview url={url} slug={slug} />
            <TagPicker
              tags={tags.data?.items ?? []}
              value={tagIds}
              onChange={setTagIds}
              error={formError.at('tag_ids')}
            />
            {newTags.length > 0 && (
              <p className="field-help">
                {t('links.newTagsPending', { names: newTags.join(', ') })}{' '}
                <button
                  type="button"
                  className="button button-secondary"
                  onClick={() => setNewTags([])}
                >
                  {t('common.cancel')}
                </button>
              </p>
            )}
            <SelectField
              name="organization_id"
              label={t('links.sharedWith')}
              value={organizationId ?? ''}
              onChange={(event) =>
                setOrganizationId(event.target.value === '' ? null : event.target.value)
              }
              options={ownerOptions(t('links.onlyMe'), organizations.data?.items)}
              error={formError.at('organization_id')}
            />
            {mayShare && (
              <TeamPicker value={teamIds} onChange={setTeamIds} error={formError.at('team_ids')} />
            )}
            {link !== null && <ClicksChart linkId={link.id} />}
            <div className="dialog-actions">
              <button type="button" className="button button-secondary" onClick={onClose}>
                {t('common.cancel')}
              </button>
              <SubmitButton pending={save.isPending}>
                {link === null ? t('links.create') : t('links.save')}
              </SubmitButton>
            </div>
          </DialogForm>
        </Dialog>
      </Modal>
    </ModalOverlay>
  )
}
