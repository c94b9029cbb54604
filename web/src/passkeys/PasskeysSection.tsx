/**
 * The security page's passkeys: the list (name, added, last used, synced or this device only),
 * adding one (then the browser's dialog), renaming and deleting. Adding and deleting go through
 * the session's re-authentication window: when it is closed, one dialog asks for the
 * password and the second factor (a code, or one of the registered passkeys answering), and the
 * action continues; within the window nothing is asked. A rename needs no proof.
 */
import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query'
import { useEffect, useState, type ReactNode } from 'react'
import { ConfirmDialog } from '../ui/dialog'
import { describeError } from '../ui/describe-error'
import { DialogForm } from '../ui/dialog-form'
import { ReauthCancelled, unlessCancelled, useReauth } from '../ui/reauth-dialog'
import { Button, Dialog, DialogTrigger, Heading, Modal, ModalOverlay } from 'react-aria-components'
import { useNavigate } from '@tanstack/react-router'
import { client, unwrap } from '../api/client'
import { leaveSignedIn } from '../auth/sign-out'
import { ApiError } from '../api/errors'
import { meQuery, mfaStatusQuery } from '../api/queries'
import { useI18n } from '../i18n/i18n'
import { announce } from '../ui/announce'
import { FormError, SubmitButton, TextField, formValues } from '../ui/form'
import { RelativeTime } from '../ui/time'
import { useFormError } from '../ui/use-form-error'
import { passkeysQuery } from './queries'
import { createPasskey, isBrowserFailure, passkeysSupported, wasCancelled } from './webauthn'
import { TableHead } from '../ui/table-head'

type Passkey = Awaited<ReturnType<typeof passkeysQuery.queryFn>>['items'][number]

export function PasskeysSection() {
  const { t } = useI18n()
  const passkeys = useQuery(passkeysQuery)
  const hasPassword = useQuery(meQuery).data?.has_password ?? true
  const totpOn = useQuery(mfaStatusQuery).data?.enabled ?? false
  const [supported, setSupported] = useState<boolean | null>(null)
  useEffect(() => {
    void passkeysSupported().then(setSupported)
  }, [])
  const items = passkeys.data?.items ?? []

  return (
    <section className="section" aria-labelledby="passkeys-heading">
      <div className="section-header">
        <h2 id="passkeys-heading">{t('passkeys.title')}</h2>
      </div>
      <p className="muted">{t('passkeys.description')}</p>
      {passkeys.data === undefined ? (
        <p className="skeleton" aria-hidden="true" />
      ) : items.length === 0 ? (
        <p className="empty" data-testid="passkeys-empty">
          {t('passkeys.empty')}
        </p>
      ) : (
        <table className="table" data-testid="passkeys">
          <TableHead
            columns={[
              t('passkeys.name'),
              t('passkeys.added'),
              t('passkeys.lastUsed'),
              t('passkeys.sync'),
            ]}
            actions
          />
          <tbody>
            {items.map((passkey) => (
              <tr key={passkey.id} data-passkey={passkey.id}>
                <td>{passkey.name}</td>
                <td>
                  <RelativeTime iso={passkey.created_at} />
                </td>
                <td>
                  {passkey.last_used_at === null ? (
                    t('passkeys.never')
                  ) : (
                    <RelativeTime iso={passkey.last_used_at} />
                  )}
                </td>
                <td>
                  <span className="badge">
                    {passkey.backup_eligible ? t('passkeys.synced') : t('passkeys.deviceOnly')}
                  </span>
                </td>
                <td className="actions passkey-actions">
                  <Rename passkey={passkey} />
                  <Delete
                    passkey={passkey}
                    last={items.length === 1}
                    lastFactor={items.length === 1 && !totpOn}
                  />
                </td>
              </tr>
            ))}
          </tbody>
        </table>
      )}
      {supported === false ? (
        <p className="muted">{t('passkeys.unsupported')}</p>
      ) : (
        <Add hasPassword={hasPassword} />
      )}
    </section>
  )
}

function useBrowserAwareError(fields: readonly string[]) {
  const { t } = useI18n()
  const state = useFormError(fields)
  const [browserError, setBrowserError] = useState<string | null>(null)
  return {
    ...state,
    general: browserError ?? state.general,
    clear: () => {
      setBrowserError(null)
      state.clear()
    },
    fail: (failure: unknown) => {
      if (wasCancelled(failure)) setBrowserError(t('passkeys.cancelled'))
      else if (isBrowserFailure(failure)) setBrowserError(t('passkeys.browserFailed'))
      else state.fail(failure)
    },
  }
}

function Add({ hasPassword }: { hasPassword: boolean }) {
  const { t } = useI18n()
  const queryClient = useQueryClient()
  const form = useBrowserAwareError(['name'])
  const reauth = useReauth({ window: true })
  const [signInAgain, setSignInAgain] = useState(false)
  const add = useMutation({
    mutationFn: (input: { name: string }) =>
      reauth.run(async () => {
        const start = await unwrap(
          client.POST('/api/auth/passkeys/registration/options', { body: {} }),
        )
        const credential = await createPasskey(start.options)
        return unwrap(
          client.POST('/api/auth/passkeys/registration', {
            body: { credential, ...(input.name !== '' && { name: input.name }) },
          }),
        )
      }),
    onSuccess: async (passkey) => {
      announce(t('passkeys.addedAnnounce', { name: passkey.name }))
      form.form.current?.reset()
      await queryClient.invalidateQueries({ queryKey: ['passkeys'] })
      await queryClient.invalidateQueries({ queryKey: ['sessions'] })
      // A backup code given as the proof is used up: the count shown beside the app changes.
      await queryClient.invalidateQueries({ queryKey: mfaStatusQuery.queryKey })
    },
    onError: unlessCancelled((failure) => {
      setSignInAgain(
        !hasPassword && failure instanceof ApiError && failure.reason === 'RECENT_SIGN_IN_REQUIRED',
      )
      form.fail(failure)
    }),
  })
  return (
    <form
      ref={form.form}
      className="panel stack"
      aria-labelledby="passkey-add-heading"
      noValidate
      onSubmit={(event) => {
        event.preventDefault()
        form.clear()
        setSignInAgain(false)
        const values = formValues(event.currentTarget)
        add.mutate({ name: (values.name ?? '').trim() })
      }}
    >
      <h3 id="passkey-add-heading">{t('passkeys.add')}</h3>
      <FormError>{form.general}</FormError>
      {signInAgain && <SignInAgain />}
      <TextField
        name="name"
        label={t('passkeys.name')}
        help={t('passkeys.nameHelp')}
        maxLength={64}
        autoComplete="off"
        error={form.at('name')}
      />
      <SubmitButton pending={add.isPending}>{t('passkeys.add')}</SubmitButton>
      {reauth.dialog}
    </form>
  )
}

/**
 * An account without a password proves itself by a fresh sign-in: this signs out and back to
 * sign-in, returning here.
 */
function SignInAgain() {
  const { t } = useI18n()
  const queryClient = useQueryClient()
  const navigate = useNavigate()
  return (
    <Button
      className="button button-secondary"
      onPress={async () => {
        await client.POST('/api/auth/logout').catch(() => undefined)
        await leaveSignedIn(queryClient, () =>
          navigate({ to: '/login', search: { return_to: '/account/security' } }),
        )
      }}
    >
      {t('passkeys.signInAgain')}
    </Button>
  )
}

/** A dialog with a small form: the API's errors appear inside it, at their fields. */
function FormDialog({
  trigger,
  triggerName,
  title,
  submitLabel,
  danger,
  fields,
  onSubmit,
  children,
}: {
  trigger: string
  triggerName: string
  title: string
  submitLabel: string
  danger?: boolean
  fields: readonly string[]
  onSubmit: (values: Record<string, string>) => Promise<unknown>
  children: (at: (field: string) => string | undefined) => ReactNode
}) {
  const { t } = useI18n()
  const form = useBrowserAwareError(fields)
  const [pending, setPending] = useState(false)
  return (
    <DialogTrigger>
      {/* The visible verb first, then the object's name for assistive technology (the name starts
          with the visible text). */}
      <Button
        className={`button button-small ${danger ? 'button-danger-outline' : 'button-secondary'}`}
      >
        {trigger}
        <span className="visually-hidden"> {triggerName}</span>
      </Button>
      <ModalOverlay className="modal-overlay" isDismissable>
        <Modal className="modal">
          <Dialog className="dialog" role={danger ? 'alertdialog' : 'dialog'}>
            {({ close }) => (
              <DialogForm
                ref={form.form}
                noValidate
                onSubmit={async (event) => {
                  form.clear()
                  setPending(true)
                  try {
                    await onSubmit(formValues(event.currentTarget))
                    close()
                  } catch (failure) {
                    form.fail(failure)
                  } finally {
                    setPending(false)
                  }
                }}
              >
                <Heading slot="title">{title}</Heading>
                <div className="dialog-body">
                  <FormError>{form.general}</FormError>
                  {children(form.at)}
                </div>
                <div className="dialog-actions">
                  <Button className="button button-secondary" onPress={close}>
                    {t('common.cancel')}
                  </Button>
                  <SubmitButton pending={pending} {...(danger && { variant: 'danger' as const })}>
                    {submitLabel}
                  </SubmitButton>
                </div>
              </DialogForm>
            )}
          </Dialog>
        </Modal>
      </ModalOverlay>
    </DialogTrigger>
  )
}

function Rename({ passkey }: { passkey: Passkey }) {
  const { t } = useI18n()
  const queryClient = useQueryClient()
  return (
    <FormDialog
      trigger={t('passkeys.renameShort')}
      triggerName={passkey.name}
      title={t('passkeys.renameTitle', { name: passkey.name })}
      submitLabel={t('passkeys.rename')}
      fields={['name']}
      onSubmit={async (values) => {
        // A name changes nothing about who can sign in: no proof.
        const renamed = await unwrap(
          client.PATCH('/api/auth/passkeys/{id}', {
            params: { path: { id: passkey.id } },
            body: { name: values.name ?? '' },
          }),
        )
        announce(t('passkeys.renamed', { name: renamed.name }))
        await queryClient.invalidateQueries({ queryKey: ['passkeys'] })
      }}
    >
      {(at) => (
        <>
          <TextField
            name="name"
            label={t('passkeys.name')}
            defaultValue={passkey.name}
            maxLength={64}
            autoComplete="off"
            required
            error={at('name')}
          />
        </>
      )}
    </FormDialog>
  )
}

function Delete({
  passkey,
  last,
  lastFactor,
}: {
  passkey: Passkey
  last: boolean
  lastFactor: boolean
}) {
  const i18n = useI18n()
  const { t } = i18n
  const queryClient = useQueryClient()
  const reauth = useReauth({ window: true })
  const [failure, setFailure] = useState<string | null>(null)
  // The confirmation closes before the request, so the re-authentication dialog never opens over
  // it.
  const remove = async () => {
    setFailure(null)
    try {
      await reauth.run(() =>
        unwrap(
          client.DELETE('/api/auth/passkeys/{id}', {
            params: { path: { id: passkey.id } },
            body: {},
          }),
        ),
      )
      announce(t('passkeys.deleted', { name: passkey.name }))
      await queryClient.invalidateQueries({ queryKey: ['passkeys'] })
      await queryClient.invalidateQueries({ queryKey: ['sessions'] })
    } catch (error) {
      if (!(error instanceof ReauthCancelled)) setFailure(describeError(error, [], i18n).text)
    }
  }
  return (
    <>
      <ConfirmDialog
        trigger={t('passkeys.deleteShort')}
        triggerLabel={`${t('passkeys.deleteShort')} ${passkey.name}`}
        triggerClassName="button button-small button-danger-outline"
        title={t('passkeys.deleteTitle', { name: passkey.name })}
        confirmLabel={t('passkeys.delete')}
        danger
        onConfirm={() => void remove()}
      >
        <p>{last ? t('passkeys.deleteLastText') : t('passkeys.deleteText')}</p>
        {lastFactor && <p className="muted">{t('passkeys.deleteLastProof')}</p>}
      </ConfirmDialog>
      {failure !== null && <FormError>{failure}</FormError>}
      {reauth.dialog}
    </>
  )
}
