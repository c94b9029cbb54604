/**
 * The one security mail a person may switch off: "a new sign-in to your
 * account". Every other security mail (password, email, two-factor, passkeys, API tokens) is
 * always sent; the text says so.
 */
import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query'
import { Switch } from 'react-aria-components'
import { client, unwrap } from '../api/client'
import { useI18n } from '../i18n/i18n'
import { announce } from '../ui/announce'

const preferencesQuery = {
  queryKey: ['notification-preferences'],
  queryFn: () => unwrap(client.GET('/api/users/me/notifications')),
}

export function NewSignInMailSetting() {
  const { t } = useI18n()
  const queryClient = useQueryClient()
  const preferences = useQuery(preferencesQuery)
  const change = useMutation({
    mutationFn: (newSignIn: boolean) =>
      unwrap(client.PUT('/api/users/me/notifications', { body: { new_sign_in: newSignIn } })),
    onSuccess: (data) => {
      queryClient.setQueryData(preferencesQuery.queryKey, data)
      announce(data.new_sign_in ? t('securityLog.mailOn') : t('securityLog.mailOff'))
    },
  })
  const enabled = change.isPending ? change.variables : preferences.data?.new_sign_in
  return (
    <section className="section" aria-labelledby="notifications-heading">
      <h2 id="notifications-heading">{t('securityLog.mailTitle')}</h2>
      <p className="muted">{t('securityLog.mailDescription')}</p>
      {enabled === undefined ? (
        <p className="skeleton" aria-hidden="true" />
      ) : (
        <Switch
          className="switch"
          isSelected={enabled}
          onChange={(value) => change.mutate(value)}
          data-testid="new-sign-in-mail"
        >
          <span className="switch-track" aria-hidden="true">
            <span className="switch-thumb" />
          </span>
          {t('securityLog.mailNewSignIn')}
        </Switch>
      )}
      {change.isError && (
        <p className="field-error" role="alert">
          {t('reason.UNKNOWN')}
        </p>
      )}
    </section>
  )
}
