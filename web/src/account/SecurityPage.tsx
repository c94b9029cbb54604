/**
 * What protects the account, at a glance, and how to change it: two-factor authentication
 * (enrol with QR code and written-out secret, backup codes, regenerate, disable) and sessions.
 */
import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query'
import { useState } from 'react'
import { client, unwrap } from '../api/client'
import { CheckboxField } from '../admin/CheckboxField'
import { meQuery, mfaStatusQuery } from '../api/queries'
import { EnrollmentRequiredNotice } from '../policy/EnrollmentRequiredNotice'
import { NewSignInMailSetting } from '../security-log/NewSignInMailSetting'
import { useI18n } from '../i18n/i18n'
import { announce } from '../ui/announce'
import { ConfirmDialog } from '../ui/dialog'
import { FormError, SubmitButton, TextField, formValues } from '../ui/form'
import { Page } from '../ui/page'
import { useFormError } from '../ui/use-form-error'
import { groupForReading } from '../ui/secret'
import { RelativeTime } from '../ui/time'
import { PasskeysSection } from '../passkeys/PasskeysSection'
import { passkeysQuery } from '../passkeys/queries'
import { BackupCodesPanel } from './BackupCodes'
import { useDeviceName } from './use-device-name'
import { TableHead } from '../ui/table-head'

const sessionsQuery = { queryKey: ['sessions'], queryFn: () => unwrap(client.GET('/api/users/me/sessions', { params: { query: { limit: 100 } } })) }

interface Enrollment {
  secret: string
  qr_svg: string
}

export function SecurityPage() {
  const { t } = useI18n()
  const status = useQuery(mfaStatusQuery)
  const me = useQuery(meQuery)
  const [codes, setCodes] = useState<string[] | null>(null)
  const hasPassword = me.data?.has_password ?? true
  // Passkeys are a second factor too: with one, sign-in is protected even without the app.
  const hasPasskeys = (useQuery(passkeysQuery).data?.items.length ?? 0) > 0
  // Issue 14: under the two-factor policy, enrolment is all this session may do.
  const restricted = status.data?.enrollment_required === true

  return (
    <Page title={t('security.title')} description={t('security.description')}>
      {restricted && <EnrollmentRequiredNotice />}
      <section className="section" aria-labelledby="mfa-heading">
        <h2 id="mfa-heading">{t('security.mfa')}</h2>
        {status.data === undefined ? (
          <p className="skeleton" aria-hidden="true" />
        ) : (
          <p className={status.data.enabled || hasPasskeys ? 'state state-good' : 'state state-weak'} data-testid="mfa-state">
            <strong>{status.data.enabled ? t('security.mfaOn') : t('security.mfaOff')}</strong>{' '}
            {status.data.enabled
              ? t('security.backupRemaining', { count: status.data.backup_codes_remaining })
              : hasPasskeys
                ? t('passkeys.protectedWithoutApp')
                : t('security.mfaOffHint')}
          </p>
        )}
        {codes !== null ? (
          <BackupCodesPanel codes={codes} onDone={() => setCodes(null)} />
        ) : status.data?.enabled === false ? (
          <Enrol hasPassword={hasPassword} onEnabled={setCodes} />
        ) : status.data?.enabled === true ? (
          <ManageMfa hasPassword={hasPassword} onCodes={setCodes} />
        ) : null}
      </section>
      <PasskeysSection />
      {!restricted && status.data !== undefined && (
        <>
          <Sessions />
          <NewSignInMailSetting />
        </>
      )}
    </Page>
  )
}

function Enrol({ hasPassword, onEnabled }: { hasPassword: boolean; onEnabled: (codes: string[]) => void }) {
  const { t } = useI18n()
  const queryClient = useQueryClient()
  const [enrollment, setEnrollment] = useState<Enrollment | null>(null)
  const begin = useFormError(['password'])
  const confirm = useFormError(['code'])

  const beginMutation = useMutation({
    mutationFn: (password: string | undefined) =>
      unwrap(client.POST('/api/auth/mfa/enroll/begin', { body: password !== undefined ? { password } : {} })),
    onSuccess: (data) => setEnrollment({ secret: data.secret, qr_svg: data.qr_svg }),
    onError: begin.fail,
  })
  const confirmMutation = useMutation({
    mutationFn: ({ code, revokeApiTokens }: { code: string; revokeApiTokens: boolean }) =>
      unwrap(client.POST('/api/auth/mfa/enroll/confirm', { body: { code, revoke_api_tokens: revokeApiTokens } })),
    onSuccess: async (data) => {
      setEnrollment(null)
      onEnabled(data.backup_codes)
      announce(t('security.enabled'))
      await queryClient.invalidateQueries({ queryKey: ['mfa-status'] })
      await queryClient.invalidateQueries({ queryKey: ['sessions'] })
    },
    onError: confirm.fail,
  })
  const cancel = async () => {
    await unwrap(client.POST('/api/auth/mfa/enroll/cancel')).catch(() => undefined)
    setEnrollment(null)
  }

  if (enrollment === null) {
    return (
      <form
        ref={begin.form}
        className="stack"
        noValidate
        onSubmit={(event) => {
          event.preventDefault()
          begin.clear()
          beginMutation.mutate(hasPassword ? (formValues(event.currentTarget).password ?? '') : undefined)
        }}
      >
        <FormError>{begin.general}</FormError>
        {hasPassword && (
          <TextField
            name="password"
            type="password"
            label={t('field.currentPassword')}
            autoComplete="current-password"
            help={t('security.beginHelp')}
            error={begin.at('password')}
          />
        )}
        <SubmitButton pending={beginMutation.isPending}>{t('security.begin')}</SubmitButton>
      </form>
    )
  }

  return (
    <div className="enrol">
      <ol className="steps">
        <li>
          <p>{t('security.scan')}</p>
          <img
            className="qr"
            alt={t('security.qrAlt')}
            width={176}
            height={176}
            src={`data:image/svg+xml;charset=utf-8,${encodeURIComponent(enrollment.qr_svg)}`}
          />
          <p>{t('security.manual')}</p>
          <p>
            <code className="secret" data-testid="totp-secret" aria-label={t('security.secretLabel')}>
              {groupForReading(enrollment.secret)}
            </code>
          </p>
        </li>
        <li>
          <form
            ref={confirm.form}
            noValidate
            onSubmit={(event) => {
              event.preventDefault()
              confirm.clear()
              const values = formValues(event.currentTarget)
              confirmMutation.mutate({ code: (values.code ?? '').replace(/\s+/g, ''), revokeApiTokens: values.revoke_api_tokens === 'on' })
            }}
          >
            <FormError>{confirm.general}</FormError>
            <TextField
              name="code"
              label={t('security.confirmCode')}
              help={t('security.confirmHelp')}
              inputMode="numeric"
              autoComplete="one-time-code"
              className="field-code"
              error={confirm.at('code')}
            />
            <CheckboxField name="revoke_api_tokens" label={t('tokens.alsoRevoke')} help={t('tokens.alsoRevokeHelp')} defaultChecked />
            <div className="row">
              <SubmitButton pending={confirmMutation.isPending}>{t('security.confirm')}</SubmitButton>
              <button type="button" className="button button-secondary" onClick={() => void cancel()}>
                {t('common.cancel')}
              </button>
            </div>
          </form>
        </li>
      </ol>
    </div>
  )
}

/** Regenerate backup codes or disable: both need a current code and the password (as the API asks). */
function ManageMfa({ hasPassword, onCodes }: { hasPassword: boolean; onCodes: (codes: string[]) => void }) {
  const { t } = useI18n()
  const queryClient = useQueryClient()
  const regenerate = useFormError(['code', 'password'])
  const disable = useFormError(['code', 'password'])
  const body = (form: HTMLFormElement) => {
    const values = formValues(form)
    return { code: (values.code ?? '').replace(/\s+/g, ''), ...(hasPassword && { password: values.password ?? '' }) }
  }
  const regenerateMutation = useMutation({
    mutationFn: (payload: { code: string; password?: string }) => unwrap(client.POST('/api/auth/mfa/backup/regenerate', { body: payload })),
    onSuccess: async (data) => {
      onCodes(data.backup_codes)
      await queryClient.invalidateQueries({ queryKey: ['mfa-status'] })
    },
    onError: regenerate.fail,
  })
  const disableMutation = useMutation({
    mutationFn: (payload: { code: string; password?: string }) => unwrap(client.POST('/api/auth/mfa/disable', { body: payload })),
    onSuccess: async () => {
      announce(t('security.disabled'))
      await queryClient.invalidateQueries({ queryKey: ['mfa-status'] })
    },
    onError: disable.fail,
  })
  const fields = (state: ReturnType<typeof useFormError>) => (
    <>
      <FormError>{state.general}</FormError>
      <TextField name="code" label={t('security.codeOrBackup')} autoComplete="one-time-code" className="field-code" error={state.at('code')} />
      {hasPassword && (
        <TextField name="password" type="password" label={t('field.currentPassword')} autoComplete="current-password" error={state.at('password')} />
      )}
    </>
  )
  return (
    <div className="grid-2">
      <form
        ref={regenerate.form}
        className="panel"
        aria-labelledby="regenerate-heading"
        noValidate
        onSubmit={(event) => {
          event.preventDefault()
          regenerate.clear()
          regenerateMutation.mutate(body(event.currentTarget))
        }}
      >
        <h3 id="regenerate-heading">{t('security.regenerate')}</h3>
        <p className="muted">{t('security.regenerateHelp')}</p>
        {fields(regenerate)}
        <SubmitButton pending={regenerateMutation.isPending}>{t('security.regenerate')}</SubmitButton>
      </form>
      <form
        ref={disable.form}
        className="panel"
        aria-labelledby="disable-heading"
        noValidate
        onSubmit={(event) => {
          event.preventDefault()
          disable.clear()
          disableMutation.mutate(body(event.currentTarget))
        }}
      >
        <h3 id="disable-heading">{t('security.disable')}</h3>
        <p className="muted">{t('security.disableHelp')}</p>
        {fields(disable)}
        <SubmitButton pending={disableMutation.isPending} variant="danger">
          {t('security.disable')}
        </SubmitButton>
      </form>
    </div>
  )
}

function Sessions() {
  const { t } = useI18n()
  const queryClient = useQueryClient()
  const sessions = useQuery(sessionsQuery)
  const items = sessions.data?.items ?? []
  const others = items.filter((session) => !session.current)
  const revoke = async (ids: string[]) => {
    await Promise.all(ids.map((id) => unwrap(client.DELETE('/api/users/me/sessions/{id}', { params: { path: { id } } })).catch(() => undefined)))
    announce(t('sessions.revoked', { count: ids.length }))
    await queryClient.invalidateQueries({ queryKey: ['sessions'] })
  }
  const deviceName = useDeviceName()
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
        <TableHead columns={[t('sessions.device'), t('sessions.ip'), t('sessions.lastSeen')]} actions />
        <tbody>
          {items.map((session) => (
            <tr key={session.id} data-session={session.id}>
              <td>
                {deviceName(session.user_agent)} {session.current && <span className="badge">{t('sessions.thisDevice')}</span>}
              </td>
              <td className="mono">{session.ip ?? '—'}</td>
              <td>
                <RelativeTime iso={session.last_seen_at} />
              </td>
              <td className="actions">
                {!session.current && (
                  <button
                    type="button"
                    className="button button-secondary button-small"
                    aria-label={t('sessions.revokeNamed', { device: deviceName(session.user_agent) })}
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
