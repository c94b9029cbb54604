/**
 * The form inside a dialog. A dialog is drawn through a portal, outside the page's DOM, but React
 * passes events up its own tree: the submit of a dialog opened from inside a page's form would
 * reach that form's onSubmit as well and send the page's change a second time. So a dialog's
 * submit ends at its own form, and every dialog's form is this one (ESLint refuses a plain <form>
 * written inside a dialog).
 */
import type { FormEvent, FormHTMLAttributes, Ref } from 'react'

type SubmitHandler = (event: FormEvent<HTMLFormElement>) => void | Promise<void>

/** Handles the submit here only: no page load, and nothing passed to a form further up. */
export function submitHere(handler: SubmitHandler): (event: FormEvent<HTMLFormElement>) => void {
  return (event) => {
    event.preventDefault()
    event.stopPropagation()
    void handler(event)
  }
}

export function DialogForm({
  onSubmit,
  ...form
}: Omit<FormHTMLAttributes<HTMLFormElement>, 'onSubmit'> & {
  ref?: Ref<HTMLFormElement>
  onSubmit: SubmitHandler
}) {
  return <form {...form} onSubmit={submitHere(onSubmit)} />
}
