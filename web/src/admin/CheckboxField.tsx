/**
 * A checkbox with its label beside it and, optionally, help below it tied with aria-describedby.
 */
import { useId } from 'react'

export function CheckboxField({
  name,
  label,
  help,
  defaultChecked,
  disabled,
}: {
  name: string
  label: string
  help?: string
  defaultChecked?: boolean
  disabled?: boolean
}) {
  const id = useId()
  return (
    <>
      <div className="checkbox">
        <input
          type="checkbox"
          id={id}
          name={name}
          defaultChecked={defaultChecked}
          disabled={disabled}
          aria-describedby={help !== undefined ? `${id}-help` : undefined}
        />
        <label htmlFor={id}>{label}</label>
      </div>
      {help !== undefined && (
        <p id={`${id}-help`} className="field-help">
          {help}
        </p>
      )}
    </>
  )
}
