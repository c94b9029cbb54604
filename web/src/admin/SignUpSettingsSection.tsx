/**
 * Administration · Settings · Sign-up: whether a person invited to an organization may create
 * their account from the invitation's link. On by default.
 */
import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query'
import { client, unwrap } from '../api/client'
import { useI18n } from '../i18n/i18n'
import { SettingsForm, SettingsSection } from '../ui/settings-section'
import { useFormError } from '../ui/use-form-error'
import { CheckboxField } from './CheckboxField'

const settingsQuery = {
  queryKey: ['sign-up-settings'],
  queryFn: () => unwrap(client.GET('/api/admin/settings/sign-up')),
}

export function SignUpSettingsSection() {
  const { t } = useI18n()
  const queryClient = useQueryClient()
  const settings = useQuery(settingsQuery)
  const form = useFormError(['through_invitation'])
  const save = useMutation({
    mutationFn: (body: { through_invitation: boolean }) =>
      unwrap(client.PUT('/api/admin/settings/sign-up', { body })),
    onSuccess: (data) => queryClient.setQueryData(settingsQuery.queryKey, data),
    onError: form.fail,
  })
  const data = settings.data
  return (
    <SettingsSection
      id="sign-up"
      title={t('admin.signUp.title')}
      description={t('admin.signUp.description')}
      loading={data === undefined}
    >
      {data !== undefined && (
        <SettingsForm
          form={form}
          pending={save.isPending}
          submitLabel={t('admin.signUp.save')}
          onSave={(values) =>
            save.mutate({ through_invitation: values.through_invitation === 'on' })
          }
        >
          <CheckboxField
            name="through_invitation"
            label={t('admin.signUp.throughInvitation')}
            help={t('admin.signUp.throughInvitationHelp')}
            defaultChecked={data.through_invitation}
          />
          {save.isSuccess && (
            <p className="state state-good" role="status">
              {t('admin.signUp.saved')}
            </p>
          )}
        </SettingsForm>
      )}
    </SettingsSection>
  )
}
