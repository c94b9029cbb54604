/**
 * What protects the account, at a glance, and how to change it (CONSOLE.md principle 1):
 * a summary as GitHub's and Keycloak's open theirs — password, authenticator app, passkeys, backup
 * codes, signed-in devices, identity provider, each with its one action — then the sections those
 * actions lead to. Forms open on demand; a sensitive change asks for the password (and second
 * factor) in one dialog only when the session's 10-minute re-authentication window is closed
 * (useReauth({ window: true }); the service enforces the window). Turning the app off and new
 * backup codes always ask for the code and the password: the window waives neither.
 */
import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query'
import { useEffect, useRef, useState } from 'react'
import { client, unwrap } from '../api/client'
import { CheckboxField } from '../admin/CheckboxField'
import { meQuery, mfaStatusQuery, providersQuery } from '../api/queries'
import { EnrollmentRequiredNotice } from '../policy/EnrollmentRequiredNotice'
import { NewSignInMailSetting } from '../security-log/NewSignInMailSetting'
import { useI18n } from '../i18n/i18n'
import { announce } from '../ui/announce'
import { focusAfterDialog } from '../ui/focus'
import { ConfirmDialog } from '../ui/dialog'
import { FormError, SubmitButton, TextField, formValues } from '../ui/form'
import { Page } from '../ui/page'
import { useFormError } from '../ui/use-form-error'
import { CopyButton, groupForReading } from '../ui/secret'
import { unlessCancelled, useReauth, type Proof } from '../ui/reauth-dialog'
import { PasskeysSection } from '../passkeys/PasskeysSection'
import { passkeysQuery } from '../passkeys/queries'
import { BackupCodesPanel } from './BackupCodes'
import {
  DeleteAccount,
  IdentitySection,
  identitiesQuery,
  Sessions,
  sessionsQuery,
  useActionError,
} from './SecuritySections'

/** Whether there is a password and when it was last set (the User itself has no such field). */
const passwordStatusQuery = {
  queryKey: ['password-status'],
  queryFn: () => unwrap(client.GET('/api/users/me/password')),
}

interface Enrollment {
  secret: string
  qr_svg: string
}

export function SecurityPage() {
  const { t } = useI18n()
  const status = useQuery(mfaStatusQuery)
  const [codes, setCodes] = useState<string[] | null>(null)
  // Under the two-factor policy, enrolment is all this session may do.
  const restricted = status.data?.enrollment_required === true

  return (
    <Page title={t('security.title')} description={t('security.description')}>
      {restricted && <EnrollmentRequiredNotice />}
      {codes !== null && (
        <BackupCodesPanel
          codes={codes}
          onDone={() => {
            setCodes(null)
            // The button that opened the codes may be gone (the set-up form): focus goes to the
            // new state, after the dialog has given focus back.
            focusAfterDialog(() => document.getElementById('mfa-state'))
          }}
        />
      )}
      {!restricted && status.data !== undefined && <Summary onCodes={setCodes} />}
      <AppSection onCodes={setCodes} />
      <PasskeysSection />
      {!restricted && status.data !== undefined && (
        <>
          <Sessions />
          <IdentitySection />
          <NewSignInMailSetting />
          <DeleteAccount />
        </>
      )}
    </Page>
  )
}

/**
 * One row of the summary: what it is, its state in words (never colour alone), and its one action.
 */
function Row({
  label,
  state,
  weak,
  testId,
  children,
}: {
  label: string
  state: string
  weak?: boolean
  testId?: string
  children?: React.ReactNode
}) {
  return (
    <li className="summary-row" data-testid={testId}>
      <span className="summary-label">{label}</span>
      <span className={weak ? 'summary-state state-weak' : 'summary-state'}>{state}</span>
      <span className="summary-action">{children}</span>
    </li>
  )
}

/**
 * "Set", "Last changed 26 Nov 2026, 16:30" — a password set before the time was recorded has no
 * date.
 */
function passwordState(
  i18n: ReturnType<typeof useI18n>,
  password: { has_password: boolean; changed_at: string | null },
): string {
  if (!password.has_password) return i18n.t('accountSecurity.passwordNone')
  if (password.changed_at === null) return i18n.t('accountSecurity.passwordSet')
  return i18n.t('accountSecurity.passwordChanged', { date: i18n.dateTime(password.changed_at) })
}

function Summary({ onCodes }: { onCodes: (codes: string[]) => void }) {
  const i18n = useI18n()
  const { t } = i18n
  const me = useQuery(meQuery).data
  const password = useQuery(passwordStatusQuery).data
  const status = useQuery(mfaStatusQuery).data
  const passkeys = useQuery(passkeysQuery).data?.items.length ?? 0
  const sessions = useQuery(sessionsQuery).data?.items.length
  const identity = useQuery(identitiesQuery).data?.items[0]
  const providerCount = useQuery(providersQuery).data?.items.length ?? 0
  const [changing, setChanging] = useState(false)
  const regenerate = useRegenerate(onCodes)
  if (me === undefined || status === undefined) return <p className="skeleton" aria-hidden="true" />
  return (
    <section className="section" aria-labelledby="summary-heading">
      <h2 id="summary-heading">{t('accountSecurity.summary')}</h2>
      <ul className="summary" data-testid="security-summary">
        <Row
          label={t('accountSecurity.password')}
          state={password === undefined ? '…' : passwordState(i18n, password)}
          testId="summary-password"
        >
          <button
            type="button"
            className="button button-secondary button-small"
            aria-expanded={changing}
            onClick={() => setChanging(!changing)}
          >
            {me.has_password
              ? t('accountSecurity.changePassword')
              : t('accountSecurity.setPassword')}
          </button>
        </Row>
        {changing && (
          <li className="summary-expanded">
            <PasswordForm hasPassword={me.has_password} onDone={() => setChanging(false)} />
          </li>
        )}
        <Row
          label={t('accountSecurity.app')}
          state={status.enabled ? t('accountSecurity.on') : t('accountSecurity.off')}
          weak={!status.enabled && passkeys === 0}
        >
          <a className="button button-secondary button-small" href="#mfa-heading">
            {status.enabled ? t('accountSecurity.manage') : t('accountSecurity.setUp')}
          </a>
        </Row>
        <Row
          label={t('passkeys.title')}
          state={t('accountSecurity.passkeyCount', { count: passkeys })}
        >
          <a className="button button-secondary button-small" href="#passkeys-heading">
            {passkeys === 0 ? t('accountSecurity.add') : t('accountSecurity.manage')}
          </a>
        </Row>
        <Row
          label={t('accountSecurity.backupCodes')}
          state={
            status.enabled
              ? t('accountSecurity.backupLeft', { count: status.backup_codes_remaining })
              : t('accountSecurity.backupWithApp')
          }
          weak={status.enabled && status.backup_codes_remaining <= 2}
        >
          {status.enabled && (
            <button
              type="button"
              className="button button-secondary button-small"
              onClick={() => void regenerate.start()}
            >
              {t('security.regenerate')}
            </button>
          )}
        </Row>
        <Row
          label={t('accountSecurity.devices')}
          state={
            sessions === undefined ? '…' : t('accountSecurity.deviceCount', { count: sessions })
          }
        >
          <a className="button button-secondary button-small" href="#sessions-heading">
            {t('accountSecurity.review')}
          </a>
        </Row>
        <Row
          label={t('accountSecurity.identity')}
          state={
            identity === undefined
              ? t('accountSecurity.identityNone')
              : (identity.name ?? identity.provider_key)
          }
        >
          {/* The section exists only when there is something to link or unlink. */}
          {(identity !== undefined || providerCount > 0) && (
            <a className="button button-secondary button-small" href="#identity-heading">
              {identity === undefined ? t('accountSecurity.link') : t('accountSecurity.manage')}
            </a>
          )}
        </Row>
      </ul>
      {regenerate.failure.text !== null && <FormError>{regenerate.failure.text}</FormError>}
      {regenerate.dialog}
    </section>
  )
}

/**
 * Setting or changing the password: only the new one here; the current one is asked by the
 * re-authentication dialog if needed.
 */
function PasswordForm({ hasPassword, onDone }: { hasPassword: boolean; onDone: () => void }) {
  const { t } = useI18n()
  const queryClient = useQueryClient()
  const state = useFormError(['new_password'])
  const reauth = useReauth({ window: true })
  const change = useMutation({
    mutationFn: (body: { new_password: string; revoke_api_tokens: boolean }) =>
      reauth.run(() => unwrap(client.POST('/api/users/me/password', { body }))),
    onSuccess: async () => {
      announce(t('password.changed'))
      onDone()
      await queryClient.invalidateQueries({ queryKey: ['me'] })
      await queryClient.invalidateQueries({ queryKey: passwordStatusQuery.queryKey })
      await queryClient.invalidateQueries({ queryKey: ['sessions'] })
    },
    onError: unlessCancelled(state.fail),
  })
  return (
    <form
      ref={state.form}
      className="form"
      aria-label={
        hasPassword ? t('accountSecurity.changePassword') : t('accountSecurity.setPassword')
      }
      noValidate
      onSubmit={(event) => {
        event.preventDefault()
        state.clear()
        const values = formValues(event.currentTarget)
        change.mutate({
          new_password: values.new_password ?? '',
          revoke_api_tokens: values.revoke_api_tokens === 'on',
        })
      }}
    >
      <FormError>{state.general}</FormError>
      <TextField
        name="new_password"
        type="password"
        label={t('field.newPassword')}
        autoComplete="new-password"
        help={t('field.newPassword.help')}
        autoFocus
        error={state.at('new_password')}
      />
      {/* On by default — a password changed in a hurry usually means a credential leaked. */}
      <CheckboxField
        name="revoke_api_tokens"
        label={t('tokens.alsoRevoke')}
        help={t('tokens.alsoRevokeHelp')}
        defaultChecked
      />
      <div className="row">
        <SubmitButton pending={change.isPending}>{t('password.submit')}</SubmitButton>
        <button type="button" className="button button-secondary" onClick={onDone}>
          {t('common.cancel')}
        </button>
      </div>
      {reauth.dialog}
    </form>
  )
}

/** The body of disable and regenerate: the dialog's proof (an empty code first asks for it). */
function trustedBody(proof: Proof): { code: string; password?: string } {
  return {
    code: proof.code ?? '',
    ...(proof.current_password !== undefined && { password: proof.current_password }),
  }
}

function useRegenerate(onCodes: (codes: string[]) => void) {
  const queryClient = useQueryClient()
  // Always a code and the password (if any), window or not: the dialog asks, the request carries.
  const reauth = useReauth()
  const failure = useActionError()
  const start = async () => {
    failure.clear()
    try {
      const data = await reauth.run((proof) =>
        unwrap(client.POST('/api/auth/mfa/backup/regenerate', { body: trustedBody(proof) })),
      )
      onCodes(data.backup_codes)
      window.scrollTo({ top: 0 })
      await queryClient.invalidateQueries({ queryKey: ['mfa-status'] })
    } catch (error) {
      failure.set(error)
    }
  }
  return { start, failure, dialog: reauth.dialog }
}

/**
 * The authenticator app: set it up (QR code, key with Copy), or — when on — new backup codes and,
 * quietly, turning it off.
 */
function AppSection({ onCodes }: { onCodes: (codes: string[]) => void }) {
  const { t } = useI18n()
  const status = useQuery(mfaStatusQuery)
  const hasPasskeys = (useQuery(passkeysQuery).data?.items.length ?? 0) > 0
  return (
    <section className="section" aria-labelledby="mfa-heading">
      <h2 id="mfa-heading">{t('security.mfa')}</h2>
      {status.data === undefined ? (
        <p className="skeleton" aria-hidden="true" />
      ) : (
        <p
          className={status.data.enabled || hasPasskeys ? 'state state-good' : 'state state-weak'}
          data-testid="mfa-state"
          id="mfa-state"
          tabIndex={-1}
        >
          <strong>{status.data.enabled ? t('security.mfaOn') : t('security.mfaOff')}</strong>{' '}
          {status.data.enabled
            ? t('security.backupRemaining', { count: status.data.backup_codes_remaining })
            : hasPasskeys
              ? t('passkeys.protectedWithoutApp')
              : t('security.mfaOffHint')}
        </p>
      )}
      {status.data?.enabled === false ? (
        <Enrol onEnabled={onCodes} />
      ) : status.data?.enabled === true ? (
        <ManageApp onCodes={onCodes} />
      ) : null}
    </section>
  )
}

function Enrol({ onEnabled }: { onEnabled: (codes: string[]) => void }) {
  const { t } = useI18n()
  const queryClient = useQueryClient()
  const [enrollment, setEnrollment] = useState<Enrollment | null>(null)
  const begin = useFormError([])
  const confirm = useFormError(['code'])
  const reauth = useReauth({ window: true })

  const beginMutation = useMutation({
    mutationFn: () =>
      reauth.run(() => unwrap(client.POST('/api/auth/mfa/enroll/begin', { body: {} }))),
    onSuccess: (data) => setEnrollment({ secret: data.secret, qr_svg: data.qr_svg }),
    onError: unlessCancelled(begin.fail),
  })
  const confirmMutation = useMutation({
    mutationFn: ({ code, revokeApiTokens }: { code: string; revokeApiTokens: boolean }) =>
      unwrap(
        client.POST('/api/auth/mfa/enroll/confirm', {
          body: { code, revoke_api_tokens: revokeApiTokens },
        }),
      ),
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
    setCancelled(true)
  }
  // Each step's new content takes the focus: the set-up's first step once it is shown (after a
  // re-authentication dialog, too), the start button again after Cancel.
  const [cancelled, setCancelled] = useState(false)
  const beginButton = useRef<HTMLButtonElement>(null)
  const firstStep = useRef<HTMLParagraphElement>(null)
  const shown = enrollment !== null
  useEffect(() => {
    if (shown) focusAfterDialog(() => firstStep.current)
  }, [shown])
  useEffect(() => {
    if (!cancelled || shown) return
    beginButton.current?.focus()
    setCancelled(false)
  }, [cancelled, shown])

  if (enrollment === null) {
    return (
      <div className="stack">
        <FormError>{begin.general}</FormError>
        <div>
          <button
            ref={beginButton}
            type="button"
            className="button button-primary"
            onClick={() => beginMutation.mutate()}
            aria-busy={beginMutation.isPending}
          >
            {t('security.begin')}
          </button>
        </div>
        {reauth.dialog}
      </div>
    )
  }

  return (
    <div className="enrol">
      <ol className="steps">
        <li>
          <p ref={firstStep} tabIndex={-1} data-testid="enrol-first-step">
            {t('security.scan')}
          </p>
          <img
            className="qr"
            alt={t('security.qrAlt')}
            width={176}
            height={176}
            src={`data:image/svg+xml;charset=utf-8,${encodeURIComponent(enrollment.qr_svg)}`}
          />
          <p>{t('security.manual')}</p>
          <p className="secret-row">
            <code
              className="secret"
              data-testid="totp-secret"
              aria-label={t('security.secretLabel')}
            >
              {groupForReading(enrollment.secret)}
            </code>
            <CopyButton text={enrollment.secret} label={t('accountSecurity.copyKey')} />
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
              confirmMutation.mutate({
                code: (values.code ?? '').replace(/\s+/g, ''),
                revokeApiTokens: values.revoke_api_tokens === 'on',
              })
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
            <CheckboxField
              name="revoke_api_tokens"
              label={t('tokens.alsoRevoke')}
              help={t('tokens.alsoRevokeHelp')}
              defaultChecked
            />
            <div className="row">
              <SubmitButton pending={confirmMutation.isPending}>
                {t('security.confirm')}
              </SubmitButton>
              <button
                type="button"
                className="button button-secondary"
                onClick={() => void cancel()}
              >
                {t('common.cancel')}
              </button>
            </div>
          </form>
        </li>
      </ol>
    </div>
  )
}

/** With the app on: new backup codes, and — a quiet action, confirmed — turning it off. */
function ManageApp({ onCodes }: { onCodes: (codes: string[]) => void }) {
  const { t } = useI18n()
  const queryClient = useQueryClient()
  const regenerate = useRegenerate(onCodes)
  const reauth = useReauth()
  const failure = useActionError()
  const disable = async () => {
    failure.clear()
    try {
      await reauth.run((proof) =>
        unwrap(client.POST('/api/auth/mfa/disable', { body: trustedBody(proof) })),
      )
      announce(t('security.disabled'))
      await queryClient.invalidateQueries({ queryKey: ['mfa-status'] })
      await queryClient.invalidateQueries({ queryKey: ['sessions'] })
    } catch (error) {
      failure.set(error)
    }
  }
  return (
    <div className="stack">
      <div className="row">
        <button
          type="button"
          className="button button-secondary"
          onClick={() => void regenerate.start()}
        >
          {t('security.regenerate')}
        </button>
        <ConfirmDialog
          trigger={t('security.disable')}
          triggerClassName="button button-quiet"
          title={t('accountSecurity.disableTitle')}
          confirmLabel={t('security.disable')}
          danger
          onConfirm={() => void disable()}
        >
          <p>{t('security.disableHelp')}</p>
        </ConfirmDialog>
      </div>
      <p className="muted">{t('security.regenerateHelp')}</p>
      {regenerate.failure.text !== null && <FormError>{regenerate.failure.text}</FormError>}
      {failure.text !== null && <FormError>{failure.text}</FormError>}
      {regenerate.dialog}
      {reauth.dialog}
    </div>
  )
}
