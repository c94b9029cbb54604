/**
 * The security page's lower sections: the signed-in devices (this one first, with how
 * and when it signed in), the linked identity provider (link, unlink) and deleting one's own
 * account. Each sensitive action goes through the re-authentication window (useReauth({ window:
 * true })): a dialog asks only when the session's window is closed, and the action's confirmation
 * closes before it, so no dialog opens over another.
 */
import { useQuery, useQueryClient } from '@tanstack/react-query'
import { useNavigate } from '@tanstack/react-router'
import { useState } from 'react'
import { client, unwrap } from '../api/client'
import { leaveSignedIn } from '../auth/sign-out'
import { meQuery, providersQuery } from '../api/queries'
import { useI18n } from '../i18n/i18n'
import { announce } from '../ui/announce'
import { ConfirmDialog } from '../ui/dialog'
import { describeError } from '../ui/describe-error'
import { FormError } from '../ui/form'
import { ReauthCancelled, useReauth } from '../ui/reauth-dialog'
import { RelativeTime } from '../ui/time'
import { TableHead } from '../ui/table-head'
import { useDeviceName } from './use-device-name'

export const sessionsQuery = {
  queryKey: ['sessions'],
  queryFn: () =>
    unwrap(client.GET('/api/users/me/sessions', { params: { query: { limit: 100 } } })),
}
export const identitiesQuery = {
  queryKey: ['identities'],
  queryFn: () => unwrap(client.GET('/api/users/me/identities')),
}

/**
 * A section's error for actions confirmed in a dialog; a cancelled re-authentication is no error.
 */
export function useActionError() {
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

/**
 * "Password and authenticator app", "Passkey", "Identity provider Acme" — from the session's
 * sign_in_method.
 */
function useSignInMethod() {
  const { t } = useI18n()
  const providers = useQuery(providersQuery).data?.items ?? []
  return (method: string | null): string => {
    if (method === null) return t('accountSecurity.method.unknown')
    const [first = '', second] = method.split('+')
    const firstText =
      first === 'password' || first === 'passkey' || first === 'setup'
        ? t(`accountSecurity.method.${first}`)
        : t('accountSecurity.method.provider', {
            name: providers.find((p) => p.provider_key === first)?.name ?? first,
          })
    if (second === undefined) return firstText
    const secondText = ['totp', 'backup_code', 'passkey'].includes(second)
      ? t(`accountSecurity.second.${second}`)
      : second
    return t('accountSecurity.method.withSecond', { first: firstText, second: secondText })
  }
}

export function Sessions() {
  const { t } = useI18n()
  const queryClient = useQueryClient()
  const sessions = useQuery(sessionsQuery)
  // This device first, then the others newest first (as the API lists them).
  const items = [...(sessions.data?.items ?? [])].sort(
    (a, b) => Number(b.current) - Number(a.current),
  )
  const others = items.filter((session) => !session.current)
  const revoke = async (ids: string[]) => {
    await Promise.all(
      ids.map((id) =>
        unwrap(client.DELETE('/api/users/me/sessions/{id}', { params: { path: { id } } })).catch(
          () => undefined,
        ),
      ),
    )
    announce(t('sessions.revoked', { count: ids.length }))
    await queryClient.invalidateQueries({ queryKey: ['sessions'] })
  }
  const deviceName = useDeviceName()
  const methodOf = useSignInMethod()
  return (
    <section className="section" aria-labelledby="sessions-heading">
      <div className="section-header">
        <h2 id="sessions-heading">{t('sessions.title')}</h2>
        {others.length > 0 && (
          <ConfirmDialog
            trigger={t('sessions.revokeOthers')}
            title={t('sessions.revokeOthersTitle')}
            confirmLabel={t('sessions.revokeOthers')}
            danger
            onConfirm={() => revoke(others.map((s) => s.id))}
          >
            <p>{t('sessions.revokeOthersText', { count: others.length })}</p>
          </ConfirmDialog>
        )}
      </div>
      <p className="muted">{t('sessions.description')}</p>
      <table className="table" data-testid="sessions">
        <TableHead
          columns={[
            t('sessions.device'),
            t('accountSecurity.signedIn'),
            t('sessions.lastSeen'),
            t('sessions.ip'),
          ]}
          actions
        />
        <tbody>
          {items.map((session) => (
            <tr key={session.id} data-session={session.id}>
              <td data-label={t('sessions.device')}>
                {deviceName(session.user_agent)}{' '}
                {session.current && <span className="badge">{t('sessions.thisDevice')}</span>}
              </td>
              <td data-label={t('accountSecurity.signedIn')}>
                <span className="session-method">{methodOf(session.sign_in_method)}</span>
                <br />
                <RelativeTime iso={session.created_at} />
              </td>
              <td data-label={t('sessions.lastSeen')}>
                <RelativeTime iso={session.last_seen_at} />
              </td>
              <td className="mono ip" data-label={t('sessions.ip')}>
                {session.ip ?? '—'}
              </td>
              <td className="actions">
                {!session.current && (
                  <button
                    type="button"
                    className="button button-secondary button-small"
                    aria-label={t('sessions.revokeNamed', {
                      device: deviceName(session.user_agent),
                    })}
                    onClick={() => void revoke([session.id])}
                  >
                    {t('sessions.revoke')}
                  </button>
                )}
              </td>
            </tr>
          ))}
        </tbody>
      </table>
    </section>
  )
}

/**
 * The identity provider the account signs in with (at most one): link one of the instance's, or
 * unlink it.
 */
export function IdentitySection() {
  const { t } = useI18n()
  const queryClient = useQueryClient()
  const me = useQuery(meQuery).data
  const identity = useQuery(identitiesQuery).data?.items[0]
  const providers = useQuery(providersQuery).data?.items ?? []
  const reauth = useReauth({ window: true })
  const failure = useActionError()
  const link = async (key: string) => {
    failure.clear()
    try {
      const started = await reauth.run(() =>
        unwrap(
          client.POST('/api/users/me/identities/{provider_key}/link', {
            params: { path: { provider_key: key } },
          }),
        ),
      )
      window.location.assign(started.authorization_url)
    } catch (error) {
      failure.set(error)
    }
  }
  const unlink = async (key: string) => {
    failure.clear()
    try {
      await reauth.run(() =>
        unwrap(
          client.DELETE('/api/users/me/identities/{provider_key}', {
            params: { path: { provider_key: key } },
          }),
        ),
      )
      announce(t('accountSecurity.unlinked'))
      await queryClient.invalidateQueries({ queryKey: ['identities'] })
      await queryClient.invalidateQueries({ queryKey: ['me'] })
    } catch (error) {
      failure.set(error)
    }
  }
  if (identity === undefined && providers.length === 0) return null
  return (
    <section className="section" aria-labelledby="identity-heading">
      <h2 id="identity-heading">{t('accountSecurity.identity')}</h2>
      {identity !== undefined ? (
        <div className="stack">
          <p data-testid="identity-linked">
            {t('accountSecurity.linkedTo', { name: identity.name ?? identity.provider_key })}
          </p>
          {me?.has_password === false ? (
            <p className="muted">{t('accountSecurity.unlinkNeedsPassword')}</p>
          ) : (
            <div>
              <ConfirmDialog
                trigger={t('accountSecurity.unlink')}
                title={t('accountSecurity.unlinkTitle', {
                  name: identity.name ?? identity.provider_key,
                })}
                confirmLabel={t('accountSecurity.unlink')}
                danger
                onConfirm={() => void unlink(identity.provider_key)}
              >
                <p>{t('accountSecurity.unlinkText')}</p>
              </ConfirmDialog>
            </div>
          )}
        </div>
      ) : (
        <div className="stack">
          <p className="muted">{t('accountSecurity.linkHelp')}</p>
          <div className="row">
            {providers.map((provider) => (
              <button
                key={provider.provider_key}
                type="button"
                className="button button-secondary"
                onClick={() => void link(provider.provider_key)}
              >
                {t('accountSecurity.linkNamed', { name: provider.name })}
              </button>
            ))}
          </div>
        </div>
      )}
      {failure.text !== null && <FormError>{failure.text}</FormError>}
      {reauth.dialog}
    </section>
  )
}

/**
 * Deleting one's own account: named, confirmed, re-authenticated; then the session is gone and the
 * sign-in page shows.
 */
export function DeleteAccount() {
  const { t } = useI18n()
  const queryClient = useQueryClient()
  const navigate = useNavigate()
  const reauth = useReauth({ window: true })
  const failure = useActionError()
  const remove = async () => {
    failure.clear()
    try {
      await reauth.run(() => unwrap(client.DELETE('/api/users/me', { body: {} })))
      await leaveSignedIn(queryClient, () => navigate({ to: '/login' }))
    } catch (error) {
      failure.set(error)
    }
  }
  return (
    <section className="section" aria-labelledby="delete-account-heading">
      <h2 id="delete-account-heading">{t('accountSecurity.deleteTitle')}</h2>
      <p className="muted">{t('accountSecurity.deleteHelp')}</p>
      <ConfirmDialog
        trigger={t('accountSecurity.delete')}
        title={t('accountSecurity.deleteConfirmTitle')}
        confirmLabel={t('accountSecurity.delete')}
        danger
        onConfirm={() => void remove()}
      >
        <p>{t('accountSecurity.deleteText')}</p>
      </ConfirmDialog>
      {failure.text !== null && <FormError>{failure.text}</FormError>}
      {reauth.dialog}
    </section>
  )
}
