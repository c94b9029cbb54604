/**
 * A dialog opened by a button, whose content decides its own buttons (a form with a field, or only
 * an explanation and "Close"). Focus moves in, stays inside, returns to the trigger; Escape closes.
 * ConfirmDialog (dialog.tsx) is the short form for a plain confirmation.
 */
import type { ReactNode } from 'react'
import { Button, Dialog, DialogTrigger, Heading, Modal, ModalOverlay } from 'react-aria-components'

export function ActionDialog({
  trigger,
  triggerLabel,
  triggerClassName,
  title,
  alert,
  children,
}: {
  trigger: string
  /** The accessible name when the visible label alone is ambiguous in a list ("Remove Lin Wei"). */
  triggerLabel?: string
  triggerClassName?: string
  title: string
  /** An alertdialog: the dialog confirms something destructive or explains a refusal. */
  alert?: boolean
  children: (close: () => void) => ReactNode
}) {
  return (
    <DialogTrigger>
      <Button
        className={triggerClassName ?? 'button button-secondary button-small'}
        aria-label={triggerLabel}
      >
        {trigger}
      </Button>
      <ModalOverlay className="modal-overlay" isDismissable>
        <Modal className="modal">
          <Dialog className="dialog" role={alert ? 'alertdialog' : 'dialog'}>
            {({ close }) => (
              <>
                <Heading slot="title">{title}</Heading>
                {children(close)}
              </>
            )}
          </Dialog>
        </Modal>
      </ModalOverlay>
    </DialogTrigger>
  )
}

/** The row of a dialog's buttons: Cancel (or Close) first, the verb last. */
export function DialogActions({ children }: { children: ReactNode }) {
  return <div className="dialog-actions">{children}</div>
}
