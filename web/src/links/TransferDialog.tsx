/**
 * Transfer a link: to an organization the person may share links with (it moves at once; they may
 * no longer see it, so the list is refreshed), or as an offer to a fellow member of one of their
 * organizations (it stays theirs until the member accepts). The result is announced.
 */
import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query'
import { useState } from 'react'
import { Dialog, Heading, Modal, ModalOverlay } from 'react-aria-components'
import { client, unwrap } from '../api/client'
import { meQuery } from '../api/queries'
import { useI18n } from '../i18n/i18n'
import { announce } from '../ui/announce'
import { DialogForm } from '../ui/dialog-form'
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
      const name = link.title ?? link.url
      const person = members.data?.find((member) => `user:${member.id}` === target)
      // A person is offered the link: it stays here until they accept.
      announce(
        person === undefined
          ? t('golinks.transferred', { name })
          : t('golinks.transferOffered', { name, person: person.name }),
      )
      await queryClient.invalidateQueries({ queryKey: ['links'] })
      await queryClient.invalidateQueries({ queryKey: ['link-transfer-offers'] })
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
          <DialogForm
            ref={formError.form}
            className="stack"
            noValidate
            onSubmit={() => {
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
          </DialogForm>
        </Dialog>
      </Modal>
    </ModalOverlay>
  )
}
