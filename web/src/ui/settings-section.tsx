/**
 * One section of the administration's settings page: its heading, the sentence that says
 * what it controls, a skeleton until its data is there, and — for a section that saves — the form
 * frame every section shares: the form-level error on top, the fields, the submit button with its
 * progress. The section's id is its address on the page (the settings navigation links to it).
 */
import type { FormEvent, ReactNode } from 'react'
import { FormError, SubmitButton, formValues } from './form'
import type { useFormError } from './use-form-error'

export function SettingsSection({
  id,
  title,
  description,
  loading = false,
  children,
}: {
  id: string
  title: string
  description: ReactNode
  loading?: boolean
  children: ReactNode
}) {
  return (
    <section className="section" id={id} aria-labelledby={`${id}-heading`}>
      {/* Focusable: the page focuses it when its address names the section. */}
      <h2 id={`${id}-heading`} tabIndex={-1}>
        {title}
      </h2>
      <p className="muted">{description}</p>
      {loading ? <p className="skeleton" aria-hidden="true" /> : children}
    </section>
  )
}

/**
 * The saving form of a settings section: `onSave` gets the form's values after the last error is
 * cleared.
 */
export function SettingsForm({
  form,
  onSave,
  pending,
  submitLabel,
  children,
}: {
  form: ReturnType<typeof useFormError>
  onSave: (values: Record<string, string>, event: FormEvent<HTMLFormElement>) => void
  pending: boolean
  submitLabel: string
  children: ReactNode
}) {
  return (
    <form
      ref={form.form}
      className="stack form-narrow"
      noValidate
      onSubmit={(event) => {
        event.preventDefault()
        form.clear()
        onSave(formValues(event.currentTarget), event)
      }}
    >
      <FormError>{form.general}</FormError>
      {children}
      <SubmitButton pending={pending}>{submitLabel}</SubmitButton>
    </form>
  )
}
