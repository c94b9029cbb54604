/**
 * A person's name and language, as the profile (for oneself) and an administrator's user page (for
 * someone else) both edit them (one component, so the two forms cannot drift apart). The
 * fields are plain named inputs: the surrounding form reads them with formValues().
 */
import { useI18n } from '../i18n/i18n'
import { SelectField, TextField } from './form'

/** The languages the console speaks; a stored tag such as de-AT keeps its own value. */
function languageValue(language: string): string {
  return language.startsWith('de') || language.startsWith('en') ? language : 'en'
}

export function PersonFields({
  name,
  language,
  errors,
  own,
}: {
  name: string
  language: string
  errors: (field: 'name' | 'language') => string | undefined
  /** Editing one's own profile: the browser may fill in the name. */
  own: boolean
}) {
  const { t } = useI18n()
  const value = languageValue(language)
  const options = [
    { value: 'en', label: 'English' },
    { value: 'de', label: 'Deutsch' },
  ]
  if (!options.some((option) => option.value === value)) options.push({ value, label: value })
  return (
    <>
      <TextField
        name="name"
        label={t('field.name')}
        defaultValue={name}
        autoComplete={own ? 'name' : 'off'}
        error={errors('name')}
      />
      <SelectField
        name="language"
        label={t('profile.language')}
        defaultValue={value}
        options={options}
        error={errors('language')}
      />
    </>
  )
}
