/** /orgs: the person's organizations, creating one, and the invitations waiting for them. */
import { useInfiniteQuery, useMutation, useQuery, useQueryClient } from '@tanstack/react-query'
import { Link, useNavigate } from '@tanstack/react-router'
import { useState } from 'react'
import { client, unwrap } from '../api/client'
import { useI18n } from '../i18n/i18n'
import { announce } from '../ui/announce'
import { ConfirmDialog } from '../ui/dialog'
import { FormError, SubmitButton, TextField, formValues } from '../ui/form'
import { Page } from '../ui/page'
import { RelativeTime } from '../ui/time'
import { useFormError } from '../ui/use-form-error'
import { describeError } from '../ui/describe-error'
import { myInvitationsQuery, organizationsQuery, plansQuery } from './queries'
import { MoreButton, RoleName, usePlanName } from './parts'
import { TableHead } from '../ui/table-head'
import { TeamsAndOrganizations } from '../ui/teams-and-organizations'

export function OrgsPage() {
  const { t } = useI18n()
  const organizations = useInfiniteQuery(organizationsQuery)
  const planName = usePlanName()
  const items = organizations.data?.pages.flatMap((page) => page.items) ?? []
  // Plans are a billing matter: shown while plans are on sale, or where one was bought before.
  const billing = (useQuery(plansQuery).data?.items.length ?? 0) > 0
  const showPlan = billing || items.some((organization) => organization.plan !== 'free')
  return (
    <Page title={t('orgs.title')} description={t('orgs.description')}>
      <MyInvitations />
      <section className="section" aria-labelledby="orgs-list-heading">
        <h2 id="orgs-list-heading">{t('orgs.list')}</h2>
        {organizations.isPending ? (
          <p className="skeleton" aria-hidden="true" />
        ) : items.length === 0 ? (
          <p className="empty">{t('orgs.empty')}</p>
        ) : (
          <table className="table" data-testid="organizations">
            <TableHead
              columns={[
                t('orgs.name'),
                t('orgs.slug'),
                t('orgs.yourRole'),
                ...(showPlan ? [t('orgs.plan')] : []),
              ]}
            />
            <tbody>
              {items.map((organization) => (
                <tr key={organization.id}>
                  <td>
                    <Link to="/orgs/$org" params={{ org: organization.slug }}>
                      {organization.name}
                    </Link>
                  </td>
                  <td className="mono">{organization.slug}</td>
                  <td>
                    <RoleName role={organization.role} />
                  </td>
                  {showPlan && <td>{planName(organization.plan)}</td>}
                </tr>
              ))}
            </tbody>
          </table>
        )}
        <MoreButton query={organizations} label={t('orgs.more')} />
      </section>
      <CreateOrganization />
      {/* Last: on a phone, the explanation does not push the invitations and the list down. */}
      <TeamsAndOrganizations />
    </Page>
  )
}

function CreateOrganization() {
  const { t } = useI18n()
  const queryClient = useQueryClient()
  const navigate = useNavigate()
  const formError = useFormError(['name', 'slug'])
  const create = useMutation({
    mutationFn: (body: { name: string; slug?: string }) =>
      unwrap(client.POST('/api/organizations', { body })),
    onSuccess: async (organization) => {
      announce(t('orgs.created', { name: organization.name }))
      await queryClient.invalidateQueries({ queryKey: ['organizations'] })
      await navigate({ to: '/orgs/$org', params: { org: organization.slug } })
    },
    onError: formError.fail,
  })
  return (
    <section className="section" aria-labelledby="orgs-create-heading">
      <h2 id="orgs-create-heading">{t('orgs.new')}</h2>
      <form
        ref={formError.form}
        className="stack form-narrow"
        noValidate
        onSubmit={(event) => {
          event.preventDefault()
          formError.clear()
          const { name = '', slug = '' } = formValues(event.currentTarget)
          create.mutate({ name, ...(slug.trim() !== '' && { slug: slug.trim() }) })
        }}
      >
        <FormError>{formError.general}</FormError>
        <TextField
          name="name"
          label={t('orgs.name')}
          maxLength={100}
          autoComplete="organization"
          error={formError.at('name')}
        />
        <TextField
          name="slug"
          label={t('orgs.slugOptional')}
          help={t('orgs.slugHelp')}
          maxLength={63}
          error={formError.at('slug')}
        />
        <div>
          <SubmitButton pending={create.isPending}>{t('orgs.create')}</SubmitButton>
        </div>
      </form>
    </section>
  )
}

/** The invitations addressed to the person: accept joins at once, decline is confirmed first. */
function MyInvitations() {
  const i18n = useI18n()
  const { t } = i18n
  const queryClient = useQueryClient()
  const invitations = useInfiniteQuery(myInvitationsQuery)
  const [failure, setFailure] = useState<string | null>(null)
  const items = invitations.data?.pages.flatMap((page) => page.items) ?? []
  if (items.length === 0) return null

  const refresh = () => queryClient.invalidateQueries({ queryKey: ['my-invitations'] })
  const answer = async (id: string, how: 'accept' | 'decline', organization: string) => {
    setFailure(null)
    try {
      if (how === 'accept') {
        await unwrap(
          client.POST('/api/invitations/{invitation_id}/accept', {
            params: { path: { invitation_id: id } },
          }),
        )
        announce(t('orgs.invitation.joined', { name: organization }))
        await queryClient.invalidateQueries({ queryKey: ['organizations'] })
      } else {
        await unwrap(
          client.POST('/api/invitations/{invitation_id}/decline', {
            params: { path: { invitation_id: id } },
          }),
        )
        announce(t('orgs.invitation.declined', { name: organization }))
      }
    } catch (error) {
      setFailure(describeError(error, [], i18n).text)
    }
    await refresh()
  }

  return (
    <section className="section section-attention" aria-labelledby="orgs-invited-heading">
      <h2 id="orgs-invited-heading">{t('orgs.invitation.title')}</h2>
      <FormError>{failure}</FormError>
      <table className="table" data-testid="my-invitations">
        <TableHead
          columns={[
            t('orgs.name'),
            t('orgs.role'),
            t('orgs.invitation.by'),
            t('orgs.invitation.expires'),
          ]}
          actions
        />
        <tbody>
          {items.map((invitation) => (
            <tr key={invitation.id}>
              <td>{invitation.organization_name}</td>
              <td>
                <RoleName role={invitation.role} />
              </td>
              <td>{invitation.invited_by_name ?? t('orgs.invitation.byDeleted')}</td>
              <td>
                <RelativeTime iso={invitation.expires_at} />
              </td>
              <td className="actions">
                <div className="row row-end">
                  <button
                    type="button"
                    className="button button-primary"
                    aria-label={t('orgs.invitation.acceptNamed', {
                      name: invitation.organization_name,
                    })}
                    onClick={() =>
                      void answer(invitation.id, 'accept', invitation.organization_name)
                    }
                  >
                    {t('orgs.invitation.accept')}
                  </button>
                  <ConfirmDialog
                    trigger={t('orgs.invitation.decline')}
                    triggerLabel={t('orgs.invitation.declineNamed', {
                      name: invitation.organization_name,
                    })}
                    title={t('orgs.invitation.declineTitle', {
                      name: invitation.organization_name,
                    })}
                    confirmLabel={t('orgs.invitation.declineConfirm')}
                    danger
                    onConfirm={() => answer(invitation.id, 'decline', invitation.organization_name)}
                  >
                    <p>{t('orgs.invitation.declineText')}</p>
                  </ConfirmDialog>
                </div>
              </td>
            </tr>
          ))}
        </tbody>
      </table>
      <MoreButton query={invitations} label={t('orgs.more')} />
    </section>
  )
}
