/**
 * Administration · one user: name, email and role; disable and enable; a new password, or a reset
 * link mailed or to hand over; reset two-factor authentication; delete after typing
 * their email. Credential and privilege changes ask for the
 * administrator's own proof (reauth dialog). Administrators cannot demote, disable or delete
 * themselves — that is what keeps an administrator on the instance — so on their own account the
 * page says so instead of offering a request that would fail.
 */
import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query'
import { Link, useNavigate } from '@tanstack/react-router'
import { useState } from 'react'
import { Heading } from 'react-aria-components'
import { client, unwrap } from '../api/client'
import { meQuery } from '../api/queries'
import { useI18n } from '../i18n/i18n'
import { announce } from '../ui/announce'
import { describeError } from '../ui/describe-error'
import { ConfirmDialog } from '../ui/dialog'
import { DialogForm } from '../ui/dialog-form'
import { FormError, SubmitButton, TextField, formValues } from '../ui/form'
import { Page } from '../ui/page'
import { PersonFields } from '../ui/person-fields'
import { ReauthCancelled, unlessCancelled, useReauth, type Proof } from '../ui/reauth-dialog'
import { RelativeTime } from '../ui/time'
import { useFormError } from '../ui/use-form-error'
import { resetAvailabilityQuery } from '../recovery/queries'
import { NewPasswordField } from '../ui/PasswordStrength'
import { CopyButton } from '../ui/secret'
import { CheckboxField } from './CheckboxField'
import { FormDialog } from './FormDialog'
import { isSelfService, SelfServiceNotice } from './SelfServiceNotice'
import { userQuery, type AdminUser } from './queries'

type UserChange = Partial<
  Pick<AdminUser, 'name' | 'email' | 'is_admin' | 'disabled' | 'language'>
> & { password?: string }

function useUpdateUser(user: AdminUser) {
  const queryClient = useQueryClient()
  const reauth = useReauth()
  const update = (change: UserChange) =>
    reauth.run((proof: Proof) =>
      unwrap(
        client.PUT('/api/admin/users/{id}', {
          params: { path: { id: user.id } },
          body: { ...change, ...proof },
        }),
      ),
    )
  const saved = async (data: AdminUser) => {
    queryClient.setQueryData(userQuery(user.id).queryKey, data)
    await queryClient.invalidateQueries({ queryKey: ['admin', 'users'] })
  }
  return { update, saved, dialog: reauth.dialog, run: reauth.run }
}

export function UserPage({ userId }: { userId: string }) {
  const { t } = useI18n()
  const user = useQuery(userQuery(userId))
  const me = useQuery(meQuery)
  if (user.error) throw user.error
  const data = user.data
  const self = data !== undefined && me.data?.id === data.id
  return (
    <Page
      title={data?.name ?? t('admin.users.title')}
      description={
        data !== undefined ? t('admin.user.description', { email: data.email }) : undefined
      }
      actions={
        <Link to="/admin/users" className="back-link">
          {t('admin.users.back')}
        </Link>
      }
    >
      {data === undefined ? (
        <p className="skeleton" aria-hidden="true" />
      ) : (
        <>
          <UserFacts user={data} />
          <DetailsForm key={data.updated_at} user={data} self={self} />
          <TeamsSection user={data} />
          <AccessSection user={data} self={self} />
          <PasswordSection user={data} self={self} />
          <MfaSection user={data} self={self} />
          <DeleteSection user={data} self={self} />
        </>
      )}
    </Page>
  )
}

/**
 * The teams this person belongs to (GET /api/admin/teams?member_id=), first page; teams are managed
 * on their own pages.
 */
function TeamsSection({ user }: { user: AdminUser }) {
  const { t } = useI18n()
  const teams = useQuery({
    queryKey: ['admin', 'teams', { member: user.id }],
    queryFn: () =>
      unwrap(
        client.GET('/api/admin/teams', { params: { query: { member_id: user.id, limit: 50 } } }),
      ),
  })
  const items = teams.data?.items ?? []
  return (
    <section className="section" aria-labelledby="user-teams-heading" data-testid="user-teams">
      <h2 id="user-teams-heading">{t('admin.user.teams')}</h2>
      <p className="muted">{t('admin.user.teamsHelp')}</p>
      {teams.data === undefined ? (
        <p className="skeleton" aria-hidden="true" />
      ) : items.length === 0 ? (
        <p className="empty">{t('admin.user.noTeams')}</p>
      ) : (
        <ul className="team-list">
          {items.map((team) => (
            <li key={team.id}>
              <Link to="/admin/teams/$teamId" params={{ teamId: team.id }}>
                {team.name}
              </Link>
            </li>
          ))}
          {teams.data.next_cursor !== null && (
            <li className="muted">{t('admin.user.moreTeams')}</li>
          )}
        </ul>
      )}
    </section>
  )
}

function UserFacts({ user }: { user: AdminUser }) {
  const { t } = useI18n()
  return (
    <dl className="facts" data-testid="user-facts">
      <div>
        <dt>{t('admin.users.status')}</dt>
        <dd data-testid="user-status">
          {user.disabled ? t('admin.users.disabled') : t('admin.users.active')}
        </dd>
      </div>
      <div>
        <dt>{t('admin.users.role')}</dt>
        <dd>{user.is_admin ? t('admin.users.admin') : t('admin.users.member')}</dd>
      </div>
      <div>
        <dt>{t('admin.users.mfa')}</dt>
        <dd data-testid="user-mfa">
          {user.mfa_enabled ? t('admin.users.mfaOn') : t('admin.users.mfaOff')}
        </dd>
      </div>
      <div>
        <dt>{t('admin.users.signIn')}</dt>
        <dd>
          {user.has_password
            ? user.oidc_provider
              ? t('admin.users.passwordAndProvider', { provider: user.oidc_provider })
              : t('admin.users.passwordOnly')
            : user.oidc_provider
              ? t('admin.users.providerOnly', { provider: user.oidc_provider })
              : t('admin.users.noSignIn')}
        </dd>
      </div>
      <div>
        <dt>{t('admin.users.lastLogin')}</dt>
        <dd>
          {user.last_login_at === null ? (
            t('admin.users.never')
          ) : (
            <RelativeTime iso={user.last_login_at} />
          )}
        </dd>
      </div>
      <div>
        <dt>{t('admin.users.createdAt')}</dt>
        <dd>
          <RelativeTime iso={user.created_at} />
        </dd>
      </div>
    </dl>
  )
}

function DetailsForm({ user, self }: { user: AdminUser; self: boolean }) {
  const { t } = useI18n()
  const state = useFormError(['name', 'language', 'email', 'is_admin'])
  const [selfService, setSelfService] = useState(false)
  const updater = useUpdateUser(user)
  const save = useMutation({
    mutationFn: updater.update,
    onSuccess: async (data) => {
      announce(t('admin.user.saved'))
      await updater.saved(data)
    },
    onError: unlessCancelled((error) =>
      isSelfService(error) ? setSelfService(true) : state.fail(error),
    ),
  })
  return (
    <section className="section" aria-labelledby="details-heading">
      <h2 id="details-heading">{t('admin.user.details')}</h2>
      <form
        ref={state.form}
        className="stack"
        noValidate
        onSubmit={(event) => {
          event.preventDefault()
          state.clear()
          setSelfService(false)
          const values = formValues(event.currentTarget)
          // Only what changed is sent: a new name needs no proof, a new email or role does.
          const change: UserChange = {}
          if ((values.name ?? '') !== user.name) change.name = values.name ?? ''
          if (values.language !== undefined && values.language !== user.language)
            change.language = values.language
          if ((values.email ?? '').trim().toLowerCase() !== user.email)
            change.email = values.email ?? ''
          if (!self && (values.is_admin === 'on') !== user.is_admin)
            change.is_admin = values.is_admin === 'on'
          if (Object.keys(change).length === 0) return announce(t('admin.user.unchanged'))
          save.mutate(change)
        }}
      >
        {selfService && <SelfServiceNotice to="/account" />}
        <FormError>{state.general}</FormError>
        <PersonFields name={user.name} language={user.language} errors={state.at} own={false} />
        <TextField
          name="email"
          type="email"
          label={t('field.email')}
          defaultValue={user.email}
          autoComplete="off"
          error={state.at('email')}
        />
        <CheckboxField
          name="is_admin"
          label={t('admin.user.isAdmin')}
          help={self ? t('admin.user.selfAdmin') : t('admin.user.isAdminHelp')}
          defaultChecked={user.is_admin}
          disabled={self}
        />
        <SubmitButton pending={save.isPending}>{t('admin.user.save')}</SubmitButton>
      </form>
      {updater.dialog}
    </section>
  )
}

/**
 * A section's error for actions confirmed in a dialog (disable, reset). The confirmation closes
 * before the request, so a re-authentication dialog never opens over another dialog.
 */
function useActionError() {
  const i18n = useI18n()
  const [error, setError] = useState<unknown>(null)
  const text = error === null ? null : describeError(error, [], i18n).text
  return {
    error,
    text,
    set: (failure: unknown) => !(failure instanceof ReauthCancelled) && setError(failure),
    clear: () => setError(null),
  }
}

function AccessSection({ user, self }: { user: AdminUser; self: boolean }) {
  const { t } = useI18n()
  const updater = useUpdateUser(user)
  const failure = useActionError()
  const setDisabled = async (disabled: boolean) => {
    failure.clear()
    try {
      await updater.saved(await updater.update({ disabled }))
      announce(
        disabled
          ? t('admin.user.disabledDone', { name: user.name })
          : t('admin.user.enabledDone', { name: user.name }),
      )
    } catch (error) {
      failure.set(error)
    }
  }
  return (
    <section className="section" aria-labelledby="access-heading">
      <h2 id="access-heading">{t('admin.user.access')}</h2>
      {self ? (
        <p className="muted">{t('admin.user.selfDisable')}</p>
      ) : user.disabled ? (
        <>
          <p className="muted">{t('admin.user.disabledText')}</p>
          <button
            type="button"
            className="button button-secondary"
            onClick={() => void setDisabled(false)}
          >
            {t('admin.user.enable')}
          </button>
        </>
      ) : (
        <>
          <p className="muted">{t('admin.user.enabledText')}</p>
          <ConfirmDialog
            trigger={t('admin.user.disable')}
            title={t('admin.user.disableTitle', { name: user.name })}
            confirmLabel={t('admin.user.disable')}
            danger
            onConfirm={() => void setDisabled(true)}
          >
            <p>{t('admin.user.disableText')}</p>
          </ConfirmDialog>
        </>
      )}
      {failure.text !== null &&
        (isSelfService(failure.error) ? (
          <SelfServiceNotice to="/account" />
        ) : (
          <FormError>{failure.text}</FormError>
        ))}
      {updater.dialog}
    </section>
  )
}

/**
 * Getting someone back in. "Set a new password" and "Create a reset link" hand the
 * administrator a way into the account, so both go through the re-authentication dialog; a mailed
 * link goes to the account's own address and needs none. The created link is shown once.
 */
function PasswordSection({ user, self }: { user: AdminUser; self: boolean }) {
  const { t } = useI18n()
  return (
    <section className="section" aria-labelledby="password-heading">
      <h2 id="password-heading">{t('admin.user.password')}</h2>
      {self ? (
        <p className="muted">
          {t('admin.user.selfPassword')} <Link to="/account">{t('admin.selfService.profile')}</Link>
        </p>
      ) : !user.has_password && user.oidc_provider !== null ? (
        <p className="muted" data-testid="password-provider-only">
          {t('admin.user.providerOnly', { name: user.name, provider: user.oidc_provider })}
        </p>
      ) : (
        <>
          <SetPasswordForm user={user} />
          <ResetLinks user={user} />
        </>
      )}
    </section>
  )
}

function SetPasswordForm({ user }: { user: AdminUser }) {
  const { t } = useI18n()
  const state = useFormError(['password'])
  const updater = useUpdateUser(user)
  const [done, setDone] = useState(false)
  const save = useMutation({
    mutationFn: (password: string) => updater.update({ password }),
    onSuccess: async (data) => {
      state.form.current?.reset()
      setDone(true)
      announce(t('admin.user.passwordSet', { name: user.name }))
      await updater.saved(data)
    },
    onError: unlessCancelled(state.fail),
  })
  return (
    <>
      <p className="muted">{t('admin.user.passwordHelp', { name: user.name })}</p>
      {done && (
        <p className="state state-good" data-testid="password-set">
          {t('admin.user.passwordSet', { name: user.name })}
        </p>
      )}
      <form
        ref={state.form}
        className="form"
        noValidate
        onSubmit={(event) => {
          event.preventDefault()
          state.clear()
          setDone(false)
          save.mutate(formValues(event.currentTarget).password ?? '')
        }}
      >
        <FormError>{state.general}</FormError>
        <NewPasswordField
          name="password"
          label={t('field.newPassword')}
          email={user.email}
          error={state.at('password')}
        />
        <SubmitButton pending={save.isPending}>{t('admin.user.setPassword')}</SubmitButton>
      </form>
      {updater.dialog}
    </>
  )
}

function ResetLinks({ user }: { user: AdminUser }) {
  const { t, dateTime } = useI18n()
  const availability = useQuery(resetAvailabilityQuery)
  const reauth = useReauth()
  const failure = useActionError()
  const [sent, setSent] = useState(false)
  const [link, setLink] = useState<{ url: string; expires_at: string } | null>(null)
  const send = useMutation({
    mutationFn: () =>
      unwrap(
        client.POST('/api/admin/users/{id}/password-reset/mail', {
          params: { path: { id: user.id } },
        }),
      ),
    onMutate: () => {
      failure.clear()
      setSent(false)
    },
    onSuccess: () => {
      setSent(true)
      announce(t('admin.user.resetSent', { email: user.email }))
    },
    onError: failure.set,
  })
  const create = async () => {
    failure.clear()
    try {
      setLink(
        await reauth.run((proof) =>
          unwrap(
            client.POST('/api/admin/users/{id}/password-reset/link', {
              params: { path: { id: user.id } },
              body: proof,
            }),
          ),
        ),
      )
    } catch (error) {
      failure.set(error)
    }
  }
  return (
    <div className="subsection" data-testid="reset-links">
      <h3>{t('admin.user.resetLinks')}</h3>
      {availability.data?.by_mail === true ? (
        <>
          <p className="muted">{t('admin.user.sendResetHelp', { email: user.email })}</p>
          <p>
            <button
              type="button"
              className="button button-secondary"
              onClick={() => send.mutate()}
              disabled={send.isPending}
            >
              {t('admin.user.sendReset')}
            </button>
          </p>
          {sent && (
            <p className="state state-good" role="status" data-testid="reset-sent">
              {t('admin.user.resetSent', { email: user.email })}
            </p>
          )}
        </>
      ) : availability.data?.by_mail === false ? (
        <p className="muted" data-testid="reset-no-mail">
          {t('admin.user.noMail')}
        </p>
      ) : null}
      {link !== null ? (
        <section className="reveal" aria-labelledby="reset-link-heading">
          <h4 id="reset-link-heading">{t('admin.user.linkTitle', { name: user.name })}</h4>
          <p>{t('admin.user.linkText', { name: user.name, time: dateTime(link.expires_at) })}</p>
          <p>
            <code className="secret" data-testid="reset-link">
              {link.url}
            </code>
          </p>
          <CopyButton text={link.url} label={t('admin.user.copyLink')} />
        </section>
      ) : (
        <>
          <p className="muted">{t('admin.user.createLinkHelp')}</p>
          <p>
            <button type="button" className="button button-secondary" onClick={() => void create()}>
              {t('admin.user.createLink')}
            </button>
          </p>
        </>
      )}
      {failure.text !== null && <FormError>{failure.text}</FormError>}
      {reauth.dialog}
    </div>
  )
}

function MfaSection({ user, self }: { user: AdminUser; self: boolean }) {
  const { t } = useI18n()
  const queryClient = useQueryClient()
  const reauth = useReauth()
  const failure = useActionError()
  const reset = async () => {
    failure.clear()
    try {
      await reauth.run((proof) =>
        unwrap(
          client.POST('/api/admin/users/{id}/mfa/reset', {
            params: { path: { id: user.id } },
            body: proof,
          }),
        ),
      )
      announce(t('admin.user.mfaResetDone', { name: user.name }))
      await queryClient.invalidateQueries({ queryKey: userQuery(user.id).queryKey })
    } catch (error) {
      failure.set(error)
    }
  }
  return (
    <section className="section" aria-labelledby="mfa-heading">
      <h2 id="mfa-heading">{t('admin.users.mfa')}</h2>
      {self ? (
        <p className="muted">
          {t('admin.user.selfMfa')}{' '}
          <Link to="/account/security">{t('admin.selfService.security')}</Link>
        </p>
      ) : user.mfa_enabled ? (
        <>
          <p className="muted">{t('admin.user.mfaResetHelp')}</p>
          <ConfirmDialog
            trigger={t('admin.user.mfaReset')}
            title={t('admin.user.mfaResetTitle', { name: user.name })}
            confirmLabel={t('admin.user.mfaReset')}
            danger
            onConfirm={() => void reset()}
          >
            <p>{t('admin.user.mfaResetText')}</p>
          </ConfirmDialog>
        </>
      ) : (
        <p className="muted">{t('admin.user.mfaNone')}</p>
      )}
      {failure.text !== null &&
        (isSelfService(failure.error) ? (
          <SelfServiceNotice to="/account/security" />
        ) : (
          <FormError>{failure.text}</FormError>
        ))}
      {reauth.dialog}
    </section>
  )
}

function DeleteSection({ user, self }: { user: AdminUser; self: boolean }) {
  const { t } = useI18n()
  return (
    <section className="section danger-zone" aria-labelledby="delete-heading">
      <h2 id="delete-heading">{t('admin.user.delete')}</h2>
      {self ? (
        <p className="muted">
          {t('admin.user.selfDelete')} <Link to="/account">{t('admin.selfService.profile')}</Link>
        </p>
      ) : (
        <>
          <p className="muted">{t('admin.user.deleteHelp')}</p>
          <DeleteUserDialog user={user} />
        </>
      )}
    </section>
  )
}

/** Deleting asks to type the email (CONSOLE.md: "Deleting a user … asks to type its name"). */
function DeleteUserDialog({ user }: { user: AdminUser }) {
  const { t } = useI18n()
  return (
    <FormDialog
      trigger={t('admin.user.delete')}
      triggerClassName="button button-danger-outline"
      alert
    >
      {(close) => <DeleteUserForm user={user} close={close} />}
    </FormDialog>
  )
}

function DeleteUserForm({ user, close }: { user: AdminUser; close: () => void }) {
  const { t } = useI18n()
  const queryClient = useQueryClient()
  const navigate = useNavigate()
  const state = useFormError(['confirm'])
  const [typed, setTyped] = useState('')
  const [mismatch, setMismatch] = useState(false)
  const remove = useMutation({
    mutationFn: () =>
      unwrap(client.DELETE('/api/admin/users/{id}', { params: { path: { id: user.id } } })),
    onSuccess: async () => {
      announce(t('admin.user.deleted', { name: user.name }))
      close()
      queryClient.removeQueries({ queryKey: userQuery(user.id).queryKey })
      await queryClient.invalidateQueries({ queryKey: ['admin', 'users'] })
      void navigate({ to: '/admin/users' })
    },
    onError: state.fail,
  })
  return (
    <>
      <Heading slot="title">{t('admin.user.deleteTitle', { name: user.name })}</Heading>
      <DialogForm
        ref={state.form}
        noValidate
        onSubmit={() => {
          state.clear()
          if (typed.trim().toLowerCase() !== user.email) {
            setMismatch(true)
            return
          }
          remove.mutate()
        }}
      >
        <p>{t('admin.user.deleteText')}</p>
        <FormError>{state.general}</FormError>
        <TextField
          name="confirm"
          label={t('admin.user.deleteConfirm', { email: user.email })}
          autoComplete="off"
          autoFocus
          value={typed}
          onChange={(event) => {
            setTyped(event.target.value)
            setMismatch(false)
          }}
          error={mismatch ? t('admin.user.deleteMismatch') : state.at('confirm')}
        />
        <div className="dialog-actions">
          <button type="button" className="button button-secondary" onClick={close}>
            {t('common.cancel')}
          </button>
          <SubmitButton pending={remove.isPending} variant="danger">
            {t('admin.user.deleteSubmit')}
          </SubmitButton>
        </div>
      </DialogForm>
    </>
  )
}
