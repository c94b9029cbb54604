/**
 * /orgs/$org: one organization (by its slug) — its settings (owners and admins), members,
 * invitations (owners and admins) and deletion (owners). What the person's role does not allow is
 * not offered, nor billing while the instance sells no plans.
 */
import { useMutation, useQuery, useQueryClient, useSuspenseQuery } from '@tanstack/react-query'
import { getRouteApi, Link, useNavigate } from '@tanstack/react-router'
import { useState } from 'react'
import { client, unwrap } from '../api/client'
import { useI18n } from '../i18n/i18n'
import { ActionDialog, DialogActions } from '../ui/action-dialog'
import { announce } from '../ui/announce'
import { describeError } from '../ui/describe-error'
import { DialogForm } from '../ui/dialog-form'
import { FormError, SubmitButton, TextField, formValues } from '../ui/form'
import { Page } from '../ui/page'
import { useFormError } from '../ui/use-form-error'
import { InvitationsSection } from './InvitationsSection'
import { MembersSection } from './MembersSection'
import { can, organizationQuery, plansQuery, type Organization } from './queries'

const route = getRouteApi('/shell/orgs/$org')

export function OrgPage() {
  const { t } = useI18n()
  const { id } = route.useLoaderData()
  const { data: organization } = useSuspenseQuery(organizationQuery(id))
  // No plans on sale: billing is not configured here, so it is not offered.
  const billing = (useQuery(plansQuery).data?.items.length ?? 0) > 0
  return (
    <Page
      title={organization.name}
      description={t(
        can(organization.role, 'manage_members')
          ? 'orgs.detail.description'
          : 'orgs.detail.descriptionMember',
        {
          role: t(`orgs.roleName.${organization.role}`),
        },
      )}
      actions={
        billing && can(organization.role, 'billing') ? (
          <Link
            to="/orgs/$org/billing"
            params={{ org: organization.slug }}
            className="button button-secondary"
          >
            {t('orgs.billing.link')}
          </Link>
        ) : undefined
      }
    >
      <p className="breadcrumb">
        <Link to="/orgs">{t('orgs.back')}</Link>
      </p>
      {can(organization.role, 'update') && <SettingsSection organization={organization} />}
      <MembersSection organization={organization} />
      {can(organization.role, 'manage_invitations') && (
        <InvitationsSection organization={organization} />
      )}
      {can(organization.role, 'delete') && <DeleteSection organization={organization} />}
    </Page>
  )
}

function SettingsSection({ organization }: { organization: Organization }) {
  const { t } = useI18n()
  const queryClient = useQueryClient()
  const navigate = useNavigate()
  const formError = useFormError(['name', 'slug'])
  const [saved, setSaved] = useState(false)
  const save = useMutation({
    mutationFn: (body: { name?: string; slug?: string }) =>
      unwrap(
        client.PATCH('/api/organizations/{id}', {
          params: { path: { id: organization.id } },
          body,
        }),
      ),
    onSuccess: async (updated) => {
      queryClient.setQueryData(organizationQuery(organization.id).queryKey, updated)
      setSaved(true)
      await queryClient.invalidateQueries({ queryKey: ['organizations'], exact: true })
      queryClient.removeQueries({ queryKey: ['organizations', 'by-slug'] })
      // The address names the slug: a new slug, a new address (the old one no longer resolves).
      if (updated.slug !== organization.slug)
        await navigate({ to: '/orgs/$org', params: { org: updated.slug }, replace: true })
    },
    onError: formError.fail,
  })
  return (
    <section className="section" aria-labelledby="org-settings-heading">
      <h2 id="org-settings-heading">{t('orgs.settings.title')}</h2>
      <form
        ref={formError.form}
        className="stack form-narrow"
        noValidate
        onSubmit={(event) => {
          event.preventDefault()
          formError.clear()
          setSaved(false)
          const { name = '', slug = '' } = formValues(event.currentTarget)
          const patch = {
            ...(name !== organization.name && { name }),
            ...(slug !== organization.slug && { slug }),
          }
          if (Object.keys(patch).length === 0) setSaved(true)
          else save.mutate(patch)
        }}
      >
        <FormError>{formError.general}</FormError>
        <TextField
          name="name"
          label={t('orgs.name')}
          defaultValue={organization.name}
          maxLength={100}
          error={formError.at('name')}
        />
        <TextField
          name="slug"
          label={t('orgs.slug')}
          help={t('orgs.slugRules')}
          defaultValue={organization.slug}
          maxLength={63}
          error={formError.at('slug')}
        />
        <div className="row">
          <SubmitButton pending={save.isPending}>{t('orgs.settings.save')}</SubmitButton>
          {saved && (
            <span role="status" className="saved">
              {t('orgs.settings.saved')}
            </span>
          )}
        </div>
      </form>
    </section>
  )
}

/** Deleting asks to type the organization's name: nothing of it can be brought back. */
function DeleteSection({ organization }: { organization: Organization }) {
  const i18n = useI18n()
  const { t } = i18n
  const queryClient = useQueryClient()
  const navigate = useNavigate()
  const [error, setError] = useState<string | null>(null)
  const [pending, setPending] = useState(false)
  return (
    <section className="section section-danger" aria-labelledby="org-delete-heading">
      <h2 id="org-delete-heading">{t('orgs.delete.title')}</h2>
      <p className="muted">{t('orgs.delete.help')}</p>
      <ActionDialog
        trigger={t('orgs.delete.action')}
        triggerClassName="button button-danger-outline"
        title={t('orgs.delete.confirmTitle', { name: organization.name })}
        alert
      >
        {(close) => (
          <DialogForm
            noValidate
            onSubmit={(event) => {
              const typed = (formValues(event.currentTarget).confirm_name ?? '').trim()
              if (typed !== organization.name) {
                setError(t('orgs.delete.mismatch', { name: organization.name }))
                event.currentTarget
                  .querySelector<HTMLInputElement>('input[name="confirm_name"]')
                  ?.focus()
                return
              }
              setError(null)
              setPending(true)
              unwrap(
                client.DELETE('/api/organizations/{id}', {
                  params: { path: { id: organization.id } },
                }),
              )
                .then(async () => {
                  close()
                  announce(t('orgs.delete.done', { name: organization.name }))
                  // Away first: this page's queries would now answer 404.
                  await navigate({ to: '/orgs' })
                  queryClient.removeQueries({ queryKey: ['organizations', organization.id] })
                  await queryClient.invalidateQueries({ queryKey: ['organizations'] })
                })
                .catch((failure: unknown) => setError(describeError(failure, [], i18n).text))
                .finally(() => setPending(false))
            }}
          >
            <p>{t('orgs.delete.consequence', { name: organization.name })}</p>
            <TextField
              name="confirm_name"
              label={t('orgs.delete.typeName', { name: organization.name })}
              autoComplete="off"
              error={error ?? undefined}
            />
            <DialogActions>
              <button type="button" className="button button-secondary" onClick={close}>
                {t('common.cancel')}
              </button>
              <SubmitButton pending={pending} variant="danger">
                {t('orgs.delete.action')}
              </SubmitButton>
            </DialogActions>
          </DialogForm>
        )}
      </ActionDialog>
    </section>
  )
}
