/**
 * The Links page's side panels (tags, collections) share one shell: a section named by its
 * heading, a one-field form that creates an entry, then the panel's own list — each entry a
 * filter link with its name and link count (PanelEntryText).
 */
import type { ReactNode } from 'react'
import { FormError, SubmitButton, TextField, formValues } from '../ui/form'
import type { useFormError } from '../ui/use-form-error'

export function SidePanel({
  id,
  title,
  create,
  children,
}: {
  /** The section's id, which the page's toggle controls (`aria-controls`). */
  id: string
  title: string
  create: {
    formError: ReturnType<typeof useFormError>
    label: string
    submit: string
    maxLength: number
    pending: boolean
    onCreate: (name: string) => void
  }
  children: ReactNode
}) {
  const { formError } = create
  return (
    <section id={id} className="section tags-panel" aria-labelledby={`${id}-heading`}>
      <h2 id={`${id}-heading`}>{title}</h2>
      <form
        ref={formError.form}
        noValidate
        className="tag-create"
        onSubmit={(event) => {
          event.preventDefault()
          formError.clear()
          create.onCreate(formValues(event.currentTarget).name ?? '')
        }}
      >
        <FormError>{formError.general}</FormError>
        <TextField
          name="name"
          label={create.label}
          maxLength={create.maxLength}
          error={formError.at('name')}
        />
        <SubmitButton pending={create.pending}>{create.submit}</SubmitButton>
      </form>
      {children}
    </section>
  )
}

/** An entry's name and its link count: shown as a number, read out as words. */
export function PanelEntryText({
  name,
  count,
  countText,
}: {
  name: string
  count: number
  countText: string
}) {
  return (
    <>
      <span className="tag-name" dir="auto">
        {name}
      </span>
      <span className="tag-count" aria-hidden="true">
        {count}
      </span>
      <span className="visually-hidden">{countText}</span>
    </>
  )
}
