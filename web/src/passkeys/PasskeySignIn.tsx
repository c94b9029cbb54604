/**
 * Signing in with a passkey: the button on the sign-in page (no password), conditional UI in the
 * email field's suggestions where the browser supports it, and the second step's passkey option.
 */
import { useNavigate } from '@tanstack/react-router'
import { useEffect, useState } from 'react'
import { client, unwrap } from '../api/client'
import { finishSignIn } from '../auth/sign-in'
import { useI18n } from '../i18n/i18n'
import { describeError } from '../ui/describe-error'
import { FormError } from '../ui/form'
import {
  autofillSupported,
  cancelPasskeyRequest,
  isBrowserFailure,
  passkeysSupported,
  getPasskey,
  wasCancelled,
} from './webauthn'

let autofillInFlight = false

/** One passwordless attempt: options, the browser's ceremony, then the API's sign-in. */
async function passwordlessSignIn(autofill: boolean) {
  const start = await unwrap(client.POST('/api/auth/passkeys/login/options'))
  const credential = await getPasskey(start.options, autofill)
  return unwrap(
    client.POST('/api/auth/passkeys/login', {
      body: { attempt_token: start.attempt_token, credential },
    }),
  )
}

function useFailureText() {
  const i18n = useI18n()
  return (failure: unknown): string | null => {
    if (wasCancelled(failure)) return i18n.t('passkeys.cancelled')
    if (isBrowserFailure(failure)) return i18n.t('passkeys.browserFailed')
    return describeError(failure, [], i18n).text
  }
}

function useSupported(): boolean {
  const [supported, setSupported] = useState(false)
  useEffect(() => {
    void passkeysSupported().then(setSupported)
  }, [])
  return supported
}

/**
 * A passkey way to sign in, as a section under the form: its heading, one button that runs the
 * ceremony (`run` resolves with the sign-in's answer) and the failure, if any, above it. `error`
 * lets the owner report failures of its own (the autofill request).
 */
function PasskeySection(props: {
  headingId: string
  heading: string
  label: string
  run: () => Promise<SignedIn>
  returnTo: string | undefined
  error?: string | null
  onStart?: () => void
}) {
  const { t } = useI18n()
  const navigate = useNavigate()
  const failureText = useFailureText()
  const [pending, setPending] = useState(false)
  const [error, setError] = useState<string | null>(null)
  return (
    <section className="passkey-sign-in" aria-labelledby={props.headingId}>
      <h2 id={props.headingId} className="divider-heading">
        {props.heading}
      </h2>
      <FormError>{error ?? props.error ?? null}</FormError>
      <button
        type="button"
        className="button button-secondary button-block"
        aria-busy={pending || undefined}
        onClick={async () => {
          setError(null)
          props.onStart?.()
          setPending(true)
          try {
            const data = await props.run()
            finishSignIn(data.user, props.returnTo, (to) => void navigate({ to }))
          } catch (failure) {
            setError(failureText(failure))
          } finally {
            setPending(false)
          }
        }}
      >
        {pending ? t('passkeys.waiting') : props.label}
      </button>
    </section>
  )
}

type SignedIn = Awaited<ReturnType<typeof passwordlessSignIn>>

export function PasskeySignIn({ returnTo }: { returnTo: string | undefined }) {
  const { t } = useI18n()
  const navigate = useNavigate()
  const supported = useSupported()
  const failureText = useFailureText()
  const [autofillError, setAutofillError] = useState<string | null>(null)

  // Conditional UI: the browser lists this site's passkeys in the email field's suggestions. One
  // request at a time for the whole page, also if the component mounts again while one waits.
  useEffect(() => {
    let active = true
    void (async () => {
      if (autofillInFlight || !(await autofillSupported()) || !active) return
      autofillInFlight = true
      try {
        const data = await passwordlessSignIn(true)
        if (active) finishSignIn(data.user, returnTo, (to) => void navigate({ to }))
      } catch (failure) {
        // A cancelled or replaced autofill request is normal; a refused passkey is worth saying.
        if (active && !wasCancelled(failure) && !isBrowserFailure(failure))
          setAutofillError(failureText(failure))
      } finally {
        autofillInFlight = false
      }
    })()
    return () => {
      active = false
      void cancelPasskeyRequest()
    }
  }, [])

  if (!supported) return null
  return (
    <PasskeySection
      headingId="passkey-heading"
      heading={t('passkeys.orSignIn')}
      label={t('passkeys.signIn')}
      run={() => passwordlessSignIn(false)}
      returnTo={returnTo}
      error={autofillError}
      onStart={() => setAutofillError(null)}
    />
  )
}

/** The second step's other way: the passkey instead of a code. */
export function PasskeySecondFactor({
  mfaToken,
  returnTo,
}: {
  mfaToken: string
  returnTo: string | undefined
}) {
  const { t } = useI18n()
  const supported = useSupported()
  if (!supported) return null
  return (
    <PasskeySection
      headingId="passkey-mfa-heading"
      heading={t('passkeys.orSecondFactor')}
      label={t('passkeys.useForSecondFactor')}
      run={async () => {
        const start = await unwrap(
          client.POST('/api/auth/passkeys/mfa/options', { body: { mfa_token: mfaToken } }),
        )
        const credential = await getPasskey(start.options)
        return unwrap(
          client.POST('/api/auth/passkeys/mfa/verify', {
            body: { mfa_token: mfaToken, credential },
          }),
        )
      }}
      returnTo={returnTo}
    />
  )
}
