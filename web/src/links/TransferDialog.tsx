/**
 * Transfer a link: to a fellow member of one of the person's organizations, or to an
 * organization they may share links with. The person may no longer see it afterwards (a personal
 * link of someone else), so the list is refreshed and the result announced.
 */
import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query'
import { useState } from 'react'
import { Dialog, Heading, Modal, ModalOverlay } from 'react-aria-components'
import { client, unwrap } from '../api/client'
import { meQuery } from '../api/queries'
import { useI18n } from '../i18n/i18n'
import { announce } from '../ui/announce'
import { FormError, SelectField, SubmitButton } from '../ui/form'
import { useFormError } from '../ui/use-form-error'
import { fellowMembersQuery } from './ownership-queries'
import { organizationsQuery, type Link } from './queries'

const FIELDS = ['user_id', 'organization_id', 'slug'] as const

export function TransferDialog({ link, onClose }: { link: Link; onClose: () => void }) {
  const { t } = useI18n()
  const queryClient = useQueryClient()
  const me = useQuery(meQuery)
  const organizations = useQuery(organizationsQuery)
  const orgIds = (organizations.data?.items ?? []).map((organization) => organization.id)
  const members = useQuery({
    ...fellowMembersQuery(orgIds, me.data?.id),
    enabled: organizations.isSuccess && me.isSuccess,
  })
  const formError = useFormError(FIELDS)
  const [target, setTarget] = useState('')

  const transfer = useMutation({
    mutationFn: () => {
      const [kind, id] = target.split(':') as ['user' | 'organization', string]
      return unwrap(
        client.POST('/api/links/{id}/transfer', {
          params: { path: { id: link.id } },
          body: kind === 'user' ? { user_id: id } : { organization_id: id },
        }),
      )
    },
    onSuccess: async () => {
      announce(t('golinks.transferred', { name: link.title ?? link.url }))
      await queryClient.invalidateQueries({ queryKey: ['links'] })
      onClose()
    },
    onError: (error) => formError.fail(error),
  })

  const options = [
    { value: '', label: t('golinks.transferChoose') },
    ...(organizations.data?.items ?? [])
      .filter((organization) => organization.id !== link.organization_id)
      .map((organization) => ({
        value: `organization:${organization.id}`,
        label: t('golinks.transferToOrganization', { name: organization.name }),
      })),
    ...(members.data ?? []).map((member) => ({
      value: `user:${member.id}`,
      label: t('golinks.transferToPerson', { name: member.name, email: member.email }),
    })),
  ]
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
            {t('golinks.transferTitle', { name: link.title ?? link.url })}
          </Heading>
          <form
            ref={formError.form}
            className="stack"
            noValidate
            onSubmit={(event) => {
              event.preventDefault()
              formError.clear()
              if (target !== '') transfer.mutate()
            }}
          >
            <FormError>{formError.general}</FormError>
            <p>{t('golinks.transferText')}</p>
            <SelectField
              name="target"
              label={t('golinks.transferTo')}
              value={target}
              onChange={(event) => setTarget(event.target.value)}
              options={options}
              error={
                formError.at('user_id') ?? formError.at('organization_id') ?? formError.at('slug')
              }
            />
            <div className="dialog-actions">
              <button type="button" className="button button-secondary" onClick={onClose}>
                {t('common.cancel')}
              </button>
              <SubmitButton pending={transfer.isPending}>{t('golinks.transfer')}</SubmitButton>
            </div>
          </form>
        </Dialog>
      </Modal>
    </ModalOverlay>
  )
}
