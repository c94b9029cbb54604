/**
 * Re-authentication before a sensitive change (CONSOLE.md, "Re-authentication"): the action is
 * tried as it is; when the API asks for the person's own password (400 PASSWORD_REQUIRED) or
 * second factor (400 on the field `code`), a dialog asks for them and retries the same action
 * with the proof. The form that started the action stays as it was, so nothing typed is lost; the
 * proof lives only in the dialog's fields and is forgotten when it closes.
 *
 * `useReauth({ window: true })` is the account's own form: the proof goes to POST
 * /api/auth/reauthenticate, which opens the session's 10-minute re-authentication window, and the
 * action is retried without a proof — so a second sensitive change within the window asks nothing.
 * An account whose second factor is a passkey (no authenticator app) answers with the passkey.
 */
import { useQuery } from '@tanstack/react-query'
import { client, unwrap } from '../api/client'
import type { getPasskey as getPasskeyType } from '../passkeys/webauthn'
import { useCallback, useRef, useState, type ReactNode } from 'react'
import { Dialog, Heading, Modal, ModalOverlay } from 'react-aria-components'
import { ApiError } from '../api/errors'
import { meQuery, mfaStatusQuery } from '../api/queries'
import { useI18n } from '../i18n/i18n'
import { DialogForm } from './dialog-form'
import { FormError, SubmitButton, TextField, formValues } from './form'
import { useFormError } from './use-form-error'

export interface Proof {
  current_password?: string
  code?: string
}

/** Thrown by `run` when the person closes the dialog instead of proving who they are. */
export class ReauthCancelled extends Error {
  constructor() {
    super('re-authentication cancelled')
    this.name = 'ReauthCancelled'
  }
}

/** The API asks for the caller's own proof: their password, or their second factor. */
export function asksForProof(error: unknown): boolean {
  if (!(error instanceof ApiError)) return false
  if (error.reason === 'PASSWORD_REQUIRED' || error.reason === 'SECOND_FACTOR_REQUIRED') return true
  return error.reason === 'VALIDATION_FAILED' && asksForCode(error)
}

function asksForCode(error: unknown): boolean {
  return (
    error instanceof ApiError &&
    (error.reason === 'SECOND_FACTOR_REQUIRED' ||
      error.details.some((problem) => problem.field === 'code'))
  )
}

/** Wraps a form's error handler so that a cancelled re-authentication shows no error. */
export function unlessCancelled(fail: (error: unknown) => void): (error: unknown) => void {
  return (error) => {
    if (!(error instanceof ReauthCancelled)) fail(error)
  }
}

interface Waiting {
  attempt: (proof: Proof) => Promise<unknown>
  resolve: (value: unknown) => void
  reject: (error: unknown) => void
  returnFocus: Element | null
  /** The API named the code field already (an account without a password, or with MFA on). */
  codeAsked: boolean
}

/**
 * Opens the session's re-authentication window with the proof; a passkey answers when no code is
 * typed.
 */
async function openWindow(proof: Proof, passkeyInstead: boolean): Promise<void> {
  const code = proof.code ?? ''
  let passkey: Awaited<ReturnType<typeof getPasskeyType>> | undefined
  if (code === '' && passkeyInstead) {
    const { getPasskey } = await import('../passkeys/webauthn')
    const challenge = await unwrap(client.POST('/api/auth/passkeys/proof/options'))
    passkey = await getPasskey(challenge.options)
  }
  const body = {
    ...(proof.current_password !== undefined && { password: proof.current_password }),
    ...(code !== '' && { code }),
    ...(passkey !== undefined && { passkey }),
  }
  await unwrap(client.POST('/api/auth/reauthenticate', { body }))
}

export function useReauth(options: { window?: boolean } = {}): {
  run: <T>(action: (proof: Proof) => Promise<T>) => Promise<T>
  dialog: ReactNode
} {
  const [waiting, setWaiting] = useState<Waiting | null>(null)
  const inWindow = options.window === true
  const passkeys = useQuery({
    queryKey: ['passkeys'],
    queryFn: () => unwrap(client.GET('/api/auth/passkeys')),
    enabled: inWindow,
  })
  const mfa = useQuery({ ...mfaStatusQuery, enabled: inWindow })
  // The passkey answers for the second factor when there is no authenticator app to type a code
  // from.
  const passkeyInstead =
    inWindow && (passkeys.data?.items.length ?? 0) > 0 && mfa.data?.enabled === false
  const run = useCallback(
    async <T,>(action: (proof: Proof) => Promise<T>): Promise<T> => {
      try {
        return await action({})
      } catch (error) {
        if (!asksForProof(error)) throw error
        const returnFocus = document.activeElement
        const attempt = inWindow
          ? async (proof: Proof) => {
              await openWindow(proof, passkeyInstead)
              return action({})
            }
          : action
        return new Promise<T>((resolve, reject) => {
          setWaiting({
            attempt,
            resolve: resolve as (value: unknown) => void,
            reject,
            returnFocus,
            codeAsked: asksForCode(error) && !passkeyInstead,
          })
        })
      }
    },
    [inWindow, passkeyInstead],
  )
  const close = (finish: () => void) => {
    const target = waiting?.returnFocus
    setWaiting(null)
    finish()
    // React Aria returns focus only to a trigger it knows; this dialog has none. Only while focus
    // is lost: content the action brought (a set-up form, a secret) may have taken it already.
    window.setTimeout(() => {
      const lost = document.activeElement === null || document.activeElement === document.body
      if (lost && target instanceof HTMLElement && target.isConnected) target.focus()
    }, 0)
  }
  const dialog =
    waiting === null ? null : (
      <ReauthDialog
        attempt={waiting.attempt}
        codeAsked={waiting.codeAsked}
        inWindow={inWindow}
        passkeyInstead={passkeyInstead}
        onDone={(value) => close(() => waiting.resolve(value))}
        onFailed={(error) => close(() => waiting.reject(error))}
        onCancel={() => close(() => waiting.reject(new ReauthCancelled()))}
      />
    )
  return { run, dialog }
}

const PROOF_FIELDS = ['current_password', 'code'] as const
/** Failures of the proof itself: shown in the dialog, which stays open for another try. */
const PROOF_REASONS = new Set([
  'PASSWORD_REQUIRED',
  'INVALID_PASSWORD',
  'INVALID_CODE',
  'RATE_LIMITED',
  'SECOND_FACTOR_REQUIRED',
  'PASSKEY_VERIFICATION_FAILED',
  'PASSKEY_CHALLENGE_EXPIRED',
])

function ReauthDialog({
  attempt,
  codeAsked,
  inWindow,
  passkeyInstead,
  onDone,
  onFailed,
  onCancel,
}: {
  attempt: (proof: Proof) => Promise<unknown>
  codeAsked: boolean
  inWindow: boolean
  passkeyInstead: boolean
  onDone: (value: unknown) => void
  onFailed: (error: unknown) => void
  onCancel: () => void
}) {
  const { t } = useI18n()
  const me = useQuery(meQuery)
  const mfa = useQuery(mfaStatusQuery)
  const state = useFormError(PROOF_FIELDS)
  const [pending, setPending] = useState(false)
  const busy = useRef(false)
  const hasPassword = me.data?.has_password ?? true
  const [codeNeeded, setCodeNeeded] = useState(codeAsked)
  const hasCode = !passkeyInstead && (codeNeeded || (mfa.data?.enabled ?? false))

  const submit = async (form: HTMLFormElement) => {
    if (busy.current) return
    busy.current = true
    setPending(true)
    state.clear()
    const values = formValues(form)
    const proof: Proof = {
      ...(hasPassword && { current_password: values.current_password ?? '' }),
      ...(hasCode && { code: (values.code ?? '').replace(/\s+/g, '') }),
    }
    try {
      onDone(await attempt(proof))
    } catch (error) {
      const aboutProof =
        error instanceof ApiError &&
        (PROOF_REASONS.has(error.reason) ||
          error.details.some((problem) =>
            (PROOF_FIELDS as readonly string[]).includes(problem.field),
          ))
      if (asksForCode(error) && !passkeyInstead) setCodeNeeded(true)
      if (aboutProof) state.fail(error)
      else onFailed(error)
    } finally {
      busy.current = false
      setPending(false)
    }
  }

  return (
    <ModalOverlay
      className="modal-overlay"
      isOpen
      isDismissable
      onOpenChange={(open) => !open && onCancel()}
    >
      <Modal className="modal">
        <Dialog className="dialog" aria-describedby="reauth-text">
          <Heading slot="title">{t('reauth.title')}</Heading>
          {/* Opened from inside page forms (SMTP, SCIM, email, password): DialogForm keeps this
              submit from reaching theirs, which would send the change again without the proof. */}
          <DialogForm
            ref={state.form}
            noValidate
            onSubmit={(event) => {
              void submit(event.currentTarget)
            }}
          >
            <p id="reauth-text">
              {inWindow
                ? t(
                    passkeyInstead
                      ? 'reauth.windowTextPasskey'
                      : hasCode
                        ? 'reauth.windowTextCode'
                        : 'reauth.windowText',
                  )
                : t(hasPassword ? 'reauth.text' : 'reauth.textCode')}
            </p>
            <FormError>{state.general}</FormError>
            {hasPassword && (
              <TextField
                name="current_password"
                type="password"
                label={t('field.currentPassword')}
                autoComplete="current-password"
                autoFocus
                error={state.at('current_password')}
              />
            )}
            {hasCode && (
              <TextField
                name="code"
                label={t('reauth.code')}
                help={t('reauth.codeHelp')}
                autoComplete="one-time-code"
                className="field-code"
                autoFocus={!hasPassword}
                error={state.at('code')}
              />
            )}
            <div className="dialog-actions">
              <button type="button" className="button button-secondary" onClick={onCancel}>
                {t('common.cancel')}
              </button>
              <SubmitButton pending={pending}>{t('reauth.submit')}</SubmitButton>
            </div>
          </DialogForm>
        </Dialog>
      </Modal>
    </ModalOverlay>
  )
}
