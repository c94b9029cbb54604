/**
 * Create or edit a link in a dialog: URL, title, slug (rules and live availability), the person's
 * own tags, and who it belongs to (only them, or one of their organizations).
 */
import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query'
import { useState } from 'react'
import { Dialog, Heading, Modal, ModalOverlay } from 'react-aria-components'
import { client, unwrap } from '../api/client'
import { ApiError } from '../api/errors'
import { useI18n } from '../i18n/i18n'
import { announce } from '../ui/announce'
import { FormError, SelectField, SubmitButton, TextField, formValues } from '../ui/form'
import { useFormError } from '../ui/use-form-error'
import { atField } from './field-error'
import { ownerOptions } from './owner-options'
import { organizationsQuery, tagsQuery, type Link } from './queries'
import { SlugField } from './SlugField'
import { ClicksChart } from './ClicksChart'
import { GoPreview } from './GoPreview'

const FIELDS = ['url', 'title', 'slug', 'tag_ids', 'organization_id'] as const

export function LinkDialog({ link, initialSlug, onClose }: { link: Link | null; initialSlug?: string; onClose: () => void }) {
  const { t } = useI18n()
  const queryClient = useQueryClient()
  const tags = useQuery(tagsQuery)
  const organizations = useQuery(organizationsQuery)
  const formError = useFormError(FIELDS)
  const [slug, setSlug] = useState(link?.slug ?? initialSlug ?? '')
  const [url, setUrl] = useState(link?.url ?? '')
  const [organizationId, setOrganizationId] = useState<string | null>(link?.organization_id ?? null)

  const save = useMutation({
    mutationFn: async ({ values, tagIds }: { values: Record<string, string>; tagIds: string[] }) => {
      const body = {
        url: values.url ?? '',
        title: values.title?.trim() ? values.title.trim() : null,
        slug: slug.trim() === '' ? null : slug.trim(),
        tag_ids: tagIds,
        organization_id: organizationId,
      }
      if (link === null) return unwrap(client.POST('/api/links', { body }))
      return unwrap(client.PATCH('/api/links/{id}', { params: { path: { id: link.id } }, body }))
    },
    onSuccess: async (saved) => {
      announce(t(link === null ? 'links.created' : 'links.saved', { name: saved.title ?? saved.url }))
      await queryClient.invalidateQueries({ queryKey: ['links'] })
      await queryClient.invalidateQueries({ queryKey: ['tags'] })
      onClose()
    },
    onError: (error) => {
      // A taken slug is a 409 whose details name the field: shown there, in the person's language.
      if (error instanceof ApiError && error.reason === 'ALREADY_EXISTS') {
        formError.fail(atField(error, 'slug', t('links.slugTaken', { slug })))
      } else formError.fail(error)
    },
  })

  return (
    <ModalOverlay className="modal-overlay" isDismissable isOpen onOpenChange={(open) => !open && onClose()}>
      <Modal className="modal modal-wide">
        <Dialog className="dialog">
          <Heading slot="title">{link === null ? t('links.createTitle') : t('links.editTitle', { name: link.title ?? link.url })}</Heading>
          <form
            ref={formError.form}
            noValidate
            className="stack"
            onSubmit={(event) => {
              event.preventDefault()
              formError.clear()
              const data = new FormData(event.currentTarget)
              save.mutate({ values: formValues(event.currentTarget), tagIds: data.getAll('tag_ids').map(String) })
            }}
          >
            <FormError>{formError.general}</FormError>
            <TextField
              name="url"
              type="url"
              label={t('links.url')}
              help={t('links.urlHelp')}
              defaultValue={link?.url ?? ''}
              required
              autoFocus
              maxLength={2048}
              error={formError.at('url')}
              onChange={(event) => setUrl(event.target.value)}
            />
            <GoPreview url={url} slug={slug} />
            <TextField name="title" label={t('links.titleField')} defaultValue={link?.title ?? ''} maxLength={200} error={formError.at('title')} />
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
              error={formError.at('slug')}
            />
            <fieldset className="field tag-choices" aria-describedby="tag-choices-help">
              <legend>{t('links.tags')}</legend>
              <p id="tag-choices-help" className="field-help">
                {tags.data !== undefined && tags.data.items.length === 0 ? t('links.noTagsYet') : t('links.tagsHelp')}
              </p>
              <div className="checkbox-list">
                {(tags.data?.items ?? []).map((tag) => (
                  <label key={tag.id} className="checkbox">
                    <input type="checkbox" name="tag_ids" value={tag.id} defaultChecked={link?.tag_ids.includes(tag.id) ?? false} />
                    {tag.name}
                  </label>
                ))}
              </div>
              {formError.at('tag_ids') && <p className="field-error">{formError.at('tag_ids')}</p>}
            </fieldset>
            <SelectField
              name="organization_id"
              label={t('links.sharedWith')}
              value={organizationId ?? ''}
              onChange={(event) => setOrganizationId(event.target.value === '' ? null : event.target.value)}
              options={ownerOptions(t('links.onlyMe'), organizations.data?.items)}
              error={formError.at('organization_id')}
            />
            {link !== null && <ClicksChart linkId={link.id} />}
            <div className="dialog-actions">
              <button type="button" className="button button-secondary" onClick={onClose}>
                {t('common.cancel')}
              </button>
              <SubmitButton pending={save.isPending}>{link === null ? t('links.create') : t('links.save')}</SubmitButton>
            </div>
          </form>
        </Dialog>
      </Modal>
    </ModalOverlay>
  )
}
