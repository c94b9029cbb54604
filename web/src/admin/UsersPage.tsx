/** Administration · Users: search, a paged list, and creating an account. */
import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query'
import { Link, useNavigate } from '@tanstack/react-router'
import { useState } from 'react'
import { Heading } from 'react-aria-components'
import { client, unwrap } from '../api/client'
import { useI18n } from '../i18n/i18n'
import { announce } from '../ui/announce'
import { DialogForm } from '../ui/dialog-form'
import { FormError, SubmitButton, TextField, formValues } from '../ui/form'
import { Page } from '../ui/page'
import { unlessCancelled, useReauth } from '../ui/reauth-dialog'
import { CopyButton } from '../ui/secret'
import { RelativeTime } from '../ui/time'
import { useFormError } from '../ui/use-form-error'
import { TableHead } from '../ui/table-head'
import { CheckboxField } from './CheckboxField'
import { FormDialog } from './FormDialog'
import { Pager } from './Pager'
import { usersQuery, type AdminUser } from './queries'

export interface UsersSearch {
  q?: string
  cursor?: string
}

export function UsersPage({ search }: { search: UsersSearch }) {
  const { t } = useI18n()
  const navigate = useNavigate()
  const users = useQuery(usersQuery(search.q, search.cursor))
  const items = users.data?.items ?? []
  return (
    <Page
      title={t('admin.users.title')}
      description={t('admin.users.description')}
      actions={<CreateUserDialog />}
    >
      <form
        role="search"
        className="search-form"
        onSubmit={(event) => {
          event.preventDefault()
          const q = (formValues(event.currentTarget).q ?? '').trim()
          void navigate({ to: '/admin/users', search: q === '' ? {} : { q } })
        }}
      >
        <TextField
          key={search.q ?? ''}
          name="q"
          type="search"
          label={t('admin.users.search')}
          defaultValue={search.q ?? ''}
          maxLength={254}
        />
        <button type="submit" className="button button-secondary">
          {t('admin.users.searchSubmit')}
        </button>
      </form>
      {users.isSuccess && items.length === 0 ? (
        <p className="empty" data-testid="users-empty">
          {search.q !== undefined
            ? t('admin.users.noMatch', { q: search.q })
            : t('admin.users.empty')}
        </p>
      ) : (
        <UsersTable items={items} />
      )}
      <Pager
        cursor={search.cursor}
        nextCursor={users.data?.next_cursor}
        label={t('admin.users.pages')}
      />
    </Page>
  )
}

function UsersTable({ items }: { items: AdminUser[] }) {
  const { t } = useI18n()
  return (
    <table className="table" data-testid="users">
      <TableHead
        columns={[
          t('field.name'),
          t('field.email'),
          t('admin.users.status'),
          t('admin.users.mfa'),
          t('admin.users.lastLogin'),
        ]}
      />
      <tbody>
        {items.map((user) => (
          <tr key={user.id}>
            <td>
              <Link to="/admin/users/$userId" params={{ userId: user.id }}>
                {user.name}
              </Link>
              {user.is_admin && <span className="badge">{t('admin.users.admin')}</span>}
            </td>
            <td>{user.email}</td>
            <td>
              {user.disabled ? (
                <span className="badge badge-muted">{t('admin.users.disabled')}</span>
              ) : (
                t('admin.users.active')
              )}
            </td>
            <td>{user.mfa_enabled ? t('admin.users.mfaOn') : t('admin.users.mfaOff')}</td>
            <td>
              {user.last_login_at === null ? (
                t('admin.users.never')
              ) : (
                <RelativeTime iso={user.last_login_at} />
              )}
            </td>
          </tr>
        ))}
      </tbody>
    </table>
  )
}

interface NewUser {
  name: string
  email: string
  password?: string
  is_admin: boolean
}

function CreateUserDialog() {
  const { t } = useI18n()
  return (
    <FormDialog trigger={t('admin.users.create')} triggerClassName="button button-primary">
      {(close) => <CreateUserForm close={close} />}
    </FormDialog>
  )
}

type CreatedUser = Awaited<ReturnType<typeof createUser>>

const createUser = (body: NewUser & { current_password?: string; code?: string }) =>
  unwrap(client.POST('/api/admin/users', { body }))

function CreateUserForm({ close }: { close: () => void }) {
  const { t } = useI18n()
  const queryClient = useQueryClient()
  const navigate = useNavigate()
  const reauth = useReauth()
  const state = useFormError(['name', 'email', 'password', 'is_admin'])
  const [handOver, setHandOver] = useState<CreatedUser | null>(null)
  const open = (user: CreatedUser) => {
    close()
    void navigate({ to: '/admin/users/$userId', params: { userId: user.id } })
  }
  const create = useMutation({
    mutationFn: (body: NewUser) => reauth.run((proof) => createUser({ ...body, ...proof })),
    onSuccess: async (user) => {
      await queryClient.invalidateQueries({ queryKey: ['admin', 'users'] })
      if (user.welcome?.link != null) {
        // Not mailed: the administrator passes the set-your-password link on.
        announce(t('admin.users.createdWithLink', { name: user.name }))
        setHandOver(user)
        return
      }
      announce(
        user.welcome?.mail === 'sent'
          ? t('admin.users.createdWelcomeSent', { name: user.name, email: user.email })
          : t('admin.users.created', { name: user.name }),
      )
      open(user)
    },
    onError: unlessCancelled(state.fail),
  })
  if (handOver !== null) return <WelcomeLink user={handOver} onDone={() => open(handOver)} />
  return (
    <>
      <Heading slot="title">{t('admin.users.create')}</Heading>
      <DialogForm
        ref={state.form}
        noValidate
        onSubmit={(event) => {
          state.clear()
          const values = formValues(event.currentTarget)
          create.mutate({
            name: values.name ?? '',
            email: values.email ?? '',
            ...(values.password && { password: values.password }),
            is_admin: values.is_admin === 'on',
          })
        }}
      >
        <FormError>{state.general}</FormError>
        <TextField
          name="name"
          label={t('field.name')}
          autoComplete="off"
          error={state.at('name')}
        />
        <TextField
          name="email"
          type="email"
          label={t('field.email')}
          autoComplete="off"
          error={state.at('email')}
        />
        <TextField
          name="password"
          type="password"
          label={t('admin.users.password')}
          help={t('admin.users.passwordHelp')}
          autoComplete="new-password"
          error={state.at('password')}
        />
        <CheckboxField name="is_admin" label={t('admin.users.makeAdmin')} />
        <div className="dialog-actions">
          <button type="button" className="button button-secondary" onClick={close}>
            {t('common.cancel')}
          </button>
          <SubmitButton pending={create.isPending}>{t('admin.users.create')}</SubmitButton>
        </div>
      </DialogForm>
      {reauth.dialog}
    </>
  )
}

function WelcomeLink({ user, onDone }: { user: CreatedUser; onDone: () => void }) {
  const { t } = useI18n()
  const link = user.welcome?.link ?? ''
  return (
    <>
      <Heading slot="title">{t('admin.users.welcomeTitle', { name: user.name })}</Heading>
      <div className="stack" data-testid="welcome-link">
        <p className="state state-weak">
          {user.welcome?.mail === 'failed'
            ? t('admin.users.welcomeFailed', { email: user.email })
            : t('admin.users.welcomeNoMail', { email: user.email })}
        </p>
        <TextField
          label={t('admin.users.welcomeLink')}
          help={t('admin.users.welcomeLinkHelp', { email: user.email })}
          name="welcome_link"
          className="mono-input"
          readOnly
          value={link}
          onFocus={(event) => event.currentTarget.select()}
        />
        <div className="dialog-actions">
          <CopyButton text={link} label={t('admin.users.copyWelcomeLink')} />
          <button type="button" className="button button-primary" onClick={onDone}>
            {t('admin.users.openCreated')}
          </button>
        </div>
      </div>
    </>
  )
}
