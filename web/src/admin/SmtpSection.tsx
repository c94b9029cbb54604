/**
 * Settings · outgoing email (SMTP): the server, the sender, the write-only password, and a test
 * email.
 */
import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query'
import { useEffect, useRef, useState } from 'react'
import { client, unwrap } from '../api/client'
import { ApiError } from '../api/errors'
import { meQuery } from '../api/queries'
import { useI18n } from '../i18n/i18n'
import { FormError, SelectField, SubmitButton, TextField, formValues } from '../ui/form'
import { useFormError } from '../ui/use-form-error'
import { unlessCancelled, useReauth } from '../ui/reauth-dialog'
import { smtpQuery, type SmtpSettings } from './queries'
import { CheckboxField } from './CheckboxField'
import { changedFields, textOrNull, WriteOnlyField, writeOnlyValue } from './write-only'

const FIELDS = [
  'enabled',
  'host',
  'port',
  'secure',
  'username',
  'password',
  'from_address',
  'from_name',
  'plaintext_auth_on_loopback',
] as const

export function SmtpSection() {
  const { t } = useI18n()
  const smtp = useQuery(smtpQuery)
  // Kept here: a save remounts the form with the saved values, and the confirmation outlives it.
  const [outcome, setOutcome] = useState<'saved' | 'unchanged' | null>(null)
  const confirmation = useRef<HTMLParagraphElement>(null)
  useEffect(() => {
    // The button that was pressed is gone with the old form: focus moves to what happened.
    if (outcome !== null) confirmation.current?.focus()
  }, [outcome])
  return (
    <section className="section" id="smtp" aria-labelledby="smtp-heading">
      {/* Focusable: the page focuses it when its address names the section. */}
      <h2 id="smtp-heading" tabIndex={-1}>
        {t('admin.smtp.title')}
      </h2>
      <p className="muted">{t('admin.smtp.description')}</p>
      {smtp.data === undefined ? (
        <p className="skeleton" aria-hidden="true" />
      ) : (
        <SmtpForm key={JSON.stringify(smtp.data)} smtp={smtp.data} onOutcome={setOutcome} />
      )}
      {outcome !== null && (
        <p
          ref={confirmation}
          tabIndex={-1}
          className={outcome === 'saved' ? 'state state-good' : 'state'}
          role="status"
          data-testid="smtp-saved"
        >
          {t(outcome === 'saved' ? 'admin.smtp.saved' : 'admin.settings.unchanged')}
        </p>
      )}
      <SmtpTest />
    </section>
  )
}

function SmtpForm({
  smtp,
  onOutcome,
}: {
  smtp: SmtpSettings
  onOutcome: (outcome: 'saved' | 'unchanged' | null) => void
}) {
  const { t } = useI18n()
  const queryClient = useQueryClient()
  const state = useFormError(FIELDS)
  // A new server or sender asks for the administrator's own proof (the API says when).
  const reauth = useReauth()
  const save = useMutation({
    mutationFn: (body: Record<string, unknown>) =>
      reauth.run((proof) =>
        unwrap(client.PUT('/api/admin/settings/smtp', { body: { ...body, ...proof } })),
      ),
    onSuccess: (data) => {
      queryClient.setQueryData(smtpQuery.queryKey, data)
      onOutcome('saved')
    },
    onError: unlessCancelled(state.fail),
  })
  return (
    <form
      ref={state.form}
      className="stack"
      aria-label={t('admin.smtp.title')}
      noValidate
      onSubmit={(event) => {
        event.preventDefault()
        state.clear()
        onOutcome(null)
        const values = formValues(event.currentTarget)
        const password = writeOnlyValue(values, 'password')
        const body = {
          ...changedFields(smtp, {
            enabled: values.enabled === 'on',
            host: textOrNull(values.host),
            port: Number(values.port),
            secure: values.secure === 'tls',
            username: textOrNull(values.username),
            from_address: textOrNull(values.from_address),
            from_name: textOrNull(values.from_name),
            plaintext_auth_on_loopback: values.plaintext_auth_on_loopback === 'on',
          }),
          ...(password !== undefined && { password }),
        }
        if (Object.keys(body).length === 0) return onOutcome('unchanged')
        save.mutate(body)
      }}
    >
      <FormError>{state.general}</FormError>
      <CheckboxField name="enabled" label={t('admin.smtp.enabled')} defaultChecked={smtp.enabled} />
      <div className="field-row">
        <TextField
          name="host"
          label={t('admin.smtp.host')}
          defaultValue={smtp.host ?? ''}
          autoComplete="off"
          spellCheck={false}
          error={state.at('host')}
        />
        <TextField
          name="port"
          type="number"
          inputMode="numeric"
          min={1}
          max={65535}
          label={t('admin.smtp.port')}
          defaultValue={smtp.port}
          error={state.at('port')}
          className="field-port"
        />
      </div>
      <SelectField
        name="secure"
        label={t('admin.smtp.security')}
        defaultValue={smtp.secure ? 'tls' : 'starttls'}
        options={[
          { value: 'starttls', label: t('admin.smtp.starttls') },
          { value: 'tls', label: t('admin.smtp.tls') },
        ]}
        error={state.at('secure')}
      />
      <TextField
        name="username"
        label={t('admin.smtp.username')}
        defaultValue={smtp.username ?? ''}
        autoComplete="off"
        error={state.at('username')}
      />
      <WriteOnlyField
        name="password"
        label={t('admin.smtp.password')}
        clearLabel={t('admin.smtp.passwordClear')}
        isSet={smtp.password_set}
        error={state.at('password')}
      />
      <CheckboxField
        name="plaintext_auth_on_loopback"
        label={t('admin.smtp.loopback')}
        help={t('admin.smtp.loopbackHelp')}
        defaultChecked={smtp.plaintext_auth_on_loopback}
      />
      <TextField
        name="from_address"
        type="email"
        label={t('admin.smtp.fromAddress')}
        defaultValue={smtp.from_address ?? ''}
        autoComplete="off"
        error={state.at('from_address')}
      />
      <TextField
        name="from_name"
        label={t('admin.smtp.fromName')}
        defaultValue={smtp.from_name ?? ''}
        autoComplete="off"
        error={state.at('from_name')}
      />
      <SubmitButton pending={save.isPending}>{t('admin.smtp.save')}</SubmitButton>
      {reauth.dialog}
    </form>
  )
}

function SmtpTest() {
  const i18n = useI18n()
  const { t } = i18n
  const me = useQuery(meQuery)
  const state = useFormError(['to'])
  const [result, setResult] = useState<{ ok: boolean; text: string } | null>(null)
  const send = useMutation({
    mutationFn: (to: string) =>
      unwrap(client.POST('/api/admin/settings/smtp/test', { body: to === '' ? {} : { to } })),
    onSuccess: (data, to) =>
      setResult({
        ok: true,
        text: t('admin.smtp.testDelivered', {
          to: to === '' ? (me.data?.email ?? '') : to,
          id: data.message_id,
        }),
      }),
    onError: (error) => {
      // The SMTP server's stage and reply code (never its text) say what to fix.
      if (error instanceof ApiError && error.reason === 'UPSTREAM_FAILED')
        setResult({ ok: false, text: t('admin.smtp.testFailed', { detail: error.message }) })
      else if (error instanceof ApiError && error.reason === 'NOT_CONFIGURED')
        setResult({ ok: false, text: t('admin.smtp.testNotConfigured') })
      else {
        setResult(null)
        state.fail(error)
      }
    },
  })
  return (
    <form
      ref={state.form}
      className="panel smtp-test"
      aria-labelledby="smtp-test-heading"
      noValidate
      onSubmit={(event) => {
        event.preventDefault()
        state.clear()
        setResult(null)
        send.mutate((formValues(event.currentTarget).to ?? '').trim())
      }}
    >
      <h3 id="smtp-test-heading">{t('admin.smtp.test')}</h3>
      <FormError>{state.general}</FormError>
      <TextField
        name="to"
        type="email"
        label={t('admin.smtp.testTo')}
        help={t('admin.smtp.testToHelp', { email: me.data?.email ?? '' })}
        autoComplete="off"
        error={state.at('to')}
      />
      <SubmitButton pending={send.isPending}>{t('admin.smtp.testSend')}</SubmitButton>
      <div role="status" aria-live="polite" className="test-result">
        {result !== null && (
          <p
            className={result.ok ? 'state state-good' : 'state state-weak'}
            data-testid="smtp-test-result"
          >
            {result.text}
          </p>
        )}
      </div>
    </form>
  )
}
