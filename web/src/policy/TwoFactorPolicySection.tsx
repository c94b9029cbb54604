/**
 * The administrator's control for the instance two-factor policy: nobody,
 * administrators, or everyone must use two-factor authentication. Saving asks for the
 * administrator's password and a current code, as the API requires for this security change.
 * A self-contained section, so the administration settings page can host it.
 */
import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query'
import { useId, useState } from 'react'
import { Label, Radio, RadioGroup } from 'react-aria-components'
import { client, unwrap } from '../api/client'
import { mfaStatusQuery } from '../api/queries'
import { useI18n } from '../i18n/i18n'
import { announce } from '../ui/announce'
import { TextField } from '../ui/form'
import { SettingsForm, SettingsSection } from '../ui/settings-section'
import { useFormError } from '../ui/use-form-error'

type Requirement = 'off' | 'admins' | 'everyone'
const REQUIREMENTS: Requirement[] = ['off', 'admins', 'everyone']

const policyQuery = {
  queryKey: ['two-factor-policy'],
  queryFn: () => unwrap(client.GET('/api/admin/settings/two-factor-policy')),
}

export function TwoFactorPolicySection() {
  const { t } = useI18n()
  const queryClient = useQueryClient()
  const policy = useQuery(policyQuery)
  const ownMfa = useQuery(mfaStatusQuery)
  const [chosen, setChosen] = useState<Requirement | null>(null)
  const helpId = useId()
  const form = useFormError(['current_password', 'code'])
  const save = useMutation({
    mutationFn: (body: { required: Requirement; current_password?: string; code?: string }) =>
      unwrap(client.PUT('/api/admin/settings/two-factor-policy', { body })),
    onSuccess: async (data) => {
      queryClient.setQueryData(policyQuery.queryKey, data)
      setChosen(null)
      announce(t('policy.saved'))
      await queryClient.invalidateQueries({ queryKey: ['mfa-status'] })
    },
    onError: form.fail,
  })
  const value = chosen ?? policy.data?.required ?? null
  const labels: Record<Requirement, { title: string; help: string }> = {
    off: { title: t('policy.off'), help: t('policy.offHelp') },
    admins: { title: t('policy.admins'), help: t('policy.adminsHelp') },
    everyone: { title: t('policy.everyone'), help: t('policy.everyoneHelp') },
  }

  return (
    <SettingsSection
      id="two-factor-policy"
      title={t('policy.title')}
      description={t('policy.description')}
      loading={value === null}
    >
      {value !== null && (
        <SettingsForm
          form={form}
          pending={save.isPending}
          submitLabel={t('policy.save')}
          onSave={(values) => {
            save.mutate({
              required: value,
              ...(values.current_password ? { current_password: values.current_password } : {}),
              ...(values.code ? { code: values.code.replace(/\s+/g, '') } : {}),
            })
          }}
        >
          <RadioGroup
            className="policy-options"
            value={value}
            onChange={(next) => setChosen(next as Requirement)}
            data-testid="two-factor-policy"
          >
            <Label className="policy-options-label">{t('policy.who')}</Label>
            {REQUIREMENTS.map((requirement) => (
              // The help is the radio's description, not part of its name.
              <Radio
                key={requirement}
                value={requirement}
                className="policy-option"
                aria-describedby={`${helpId}-${requirement}`}
              >
                <span className="policy-option-title">{labels[requirement].title}</span>
                <span id={`${helpId}-${requirement}`} className="field-help" aria-hidden="true">
                  {labels[requirement].help}
                </span>
              </Radio>
            ))}
          </RadioGroup>
          {ownMfa.data?.enabled === false && value !== 'off' && (
            <p className="warning">{t('policy.ownFactorFirst')}</p>
          )}
          <TextField
            name="current_password"
            type="password"
            label={t('field.currentPassword')}
            autoComplete="current-password"
            help={t('policy.reauthHelp')}
            error={form.at('current_password')}
          />
          {ownMfa.data?.enabled === true && (
            <TextField
              name="code"
              label={t('security.codeOrBackup')}
              autoComplete="one-time-code"
              className="field-code"
              error={form.at('code')}
            />
          )}
        </SettingsForm>
      )}
    </SettingsSection>
  )
}
