/** A team's name and description: the form that creates a team and the one that changes it. */
import { useMutation } from '@tanstack/react-query'
import { useI18n } from '../i18n/i18n'
import { FormError, SubmitButton, TextField, formValues } from '../ui/form'
import { useFormError } from '../ui/use-form-error'
import type { Team } from './queries'

export interface TeamInput {
  name: string
  description: string | null
}

export function TeamForm({
  team,
  headingId,
  heading,
  submitLabel,
  inline,
  save,
  saved,
}: {
  team?: Team
  headingId: string
  heading: string
  submitLabel: string
  inline?: boolean
  save: (input: TeamInput) => Promise<Team>
  /** After a success; `reset` empties the form (for creating the next one). */
  saved: (team: Team, reset: () => void) => Promise<void>
}) {
  const { t } = useI18n()
  const state = useFormError(['name', 'description'])
  const mutation = useMutation({
    mutationFn: save,
    onSuccess: (data) => saved(data, () => state.form.current?.reset()),
    onError: state.fail,
  })
  return (
    <section className="section" aria-labelledby={headingId}>
      <h2 id={headingId}>{heading}</h2>
      <form
        ref={state.form}
        className={inline ? 'form-inline form-inline-wide' : 'stack'}
        noValidate
        onSubmit={(event) => {
          event.preventDefault()
          state.clear()
          const values = formValues(event.currentTarget)
          const description = (values.description ?? '').trim()
          mutation.mutate({
            name: values.name ?? '',
            description: description === '' ? null : description,
          })
        }}
      >
        <FormError>{state.general}</FormError>
        <TextField
          name="name"
          label={t('field.name')}
          defaultValue={team?.name ?? ''}
          maxLength={100}
          autoComplete="off"
          error={state.at('name')}
        />
        <TextField
          name="description"
          label={t('admin.teams.teamDescription')}
          defaultValue={team?.description ?? ''}
          maxLength={500}
          autoComplete="off"
          error={state.at('description')}
        />
        <SubmitButton pending={mutation.isPending}>{submitLabel}</SubmitButton>
      </form>
    </section>
  )
}
