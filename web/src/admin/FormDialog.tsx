/** A button that opens a modal dialog holding a form; the form gets `close` for when it is done. */
import type { ReactNode } from 'react'
import { Button, Dialog, DialogTrigger, Modal, ModalOverlay } from 'react-aria-components'

export function FormDialog({
  trigger,
  triggerClassName,
  alert,
  children,
}: {
  trigger: string
  triggerClassName: string
  /** A dialog about a destructive action (role alertdialog). */
  alert?: boolean
  children: (close: () => void) => ReactNode
}) {
  return (
    <DialogTrigger>
      <Button className={triggerClassName}>{trigger}</Button>
      <ModalOverlay className="modal-overlay" isDismissable>
        <Modal className="modal">
          <Dialog className="dialog" role={alert ? 'alertdialog' : 'dialog'}>
            {({ close }) => children(close)}
          </Dialog>
        </Modal>
      </ModalOverlay>
    </DialogTrigger>
  )
}
