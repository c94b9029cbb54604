/**
 * The browser side of passkeys (@simplewebauthn/browser), loaded when first needed so the sign-in
 * page's first chunk stays small. The server's options go to the browser as they are.
 */
import { ApiError, NetworkError } from '../api/errors'
import type {
  PublicKeyCredentialCreationOptionsJSON,
  PublicKeyCredentialRequestOptionsJSON,
} from '@simplewebauthn/browser'

const library = () => import('@simplewebauthn/browser')

export async function passkeysSupported(): Promise<boolean> {
  return (await library()).browserSupportsWebAuthn()
}

export async function autofillSupported(): Promise<boolean> {
  return (await library()).browserSupportsWebAuthnAutofill()
}

// The extension results are copied into a plain object: the API's schema takes any fields there.
export async function createPasskey(options: object) {
  const credential = await (
    await library()
  ).startRegistration({ optionsJSON: options as PublicKeyCredentialCreationOptionsJSON })
  return { ...credential, clientExtensionResults: { ...credential.clientExtensionResults } }
}

/**
 * `autofill`: conditional UI — the browser offers the passkeys in the username field's suggestions.
 */
export async function getPasskey(options: object, autofill = false) {
  const credential = await (
    await library()
  ).startAuthentication({
    optionsJSON: options as PublicKeyCredentialRequestOptionsJSON,
    useBrowserAutofill: autofill,
  })
  return { ...credential, clientExtensionResults: { ...credential.clientExtensionResults } }
}

/** Ends a waiting ceremony (the autofill one, when the page goes away). */
export async function cancelPasskeyRequest(): Promise<void> {
  ;(await library()).WebAuthnAbortService.cancelCeremony()
}

/**
 * The person closed the browser's dialog, or it timed out: not an error worth more than a sentence.
 */
export function wasCancelled(failure: unknown): boolean {
  const name = failure instanceof Error ? failure.name : ''
  const cause = failure instanceof Error && failure.cause instanceof Error ? failure.cause.name : ''
  return (
    name === 'NotAllowedError' ||
    name === 'AbortError' ||
    cause === 'NotAllowedError' ||
    cause === 'AbortError'
  )
}

/**
 * Whether a failure came from the browser's WebAuthn call (SecurityError on an IP address,
 * InvalidStateError for a passkey already registered …) rather than from the API.
 */
export function isBrowserFailure(failure: unknown): boolean {
  return !(failure instanceof ApiError || failure instanceof NetworkError)
}
