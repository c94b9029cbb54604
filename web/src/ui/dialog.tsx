/**
 * Dialogs from React Aria Components: focus moves in, stays inside, and returns to what opened
 * them; Escape closes. ConfirmDialog names the object and the consequence, and its button the verb.
 */
import type { ReactNode } from 'react'
import { Button, Dialog, DialogTrigger, Heading, Modal, ModalOverlay } from 'react-aria-components'
import { useI18n } from '../i18n/i18n'

export function ConfirmDialog({
  trigger,
  triggerLabel,
  title,
  children,
  confirmLabel,
  onConfirm,
  danger,
  triggerClassName,
}: {
  trigger?: string
  triggerLabel?: string
  /** A quieter trigger than the default button, e.g. for a rare action inside a row. */
  triggerClassName?: string
  title: string
  children: ReactNode
  confirmLabel: string
  onConfirm: () => void | Promise<void>
  danger?: boolean
}) {
  const { t } = useI18n()
  return (
    <DialogTrigger>
      <Button
        className={
          triggerClassName ?? `button ${danger ? 'button-danger-outline' : 'button-secondary'}`
        }
        aria-label={triggerLabel}
      >
        {trigger ?? confirmLabel}
      </Button>
      <ModalOverlay className="modal-overlay" isDismissable>
        <Modal className="modal">
          <Dialog className="dialog" role="alertdialog">
            {({ close }) => (
              <>
                <Heading slot="title">{title}</Heading>
                <div className="dialog-body">{children}</div>
                <div className="dialog-actions">
                  <Button className="button button-secondary" onPress={close}>
                    {t('common.cancel')}
                  </Button>
                  <Button
                    className={`button ${danger ? 'button-danger' : 'button-primary'}`}
                    onPress={async () => {
                      await onConfirm()
                      close()
                    }}
                  >
                    {confirmLabel}
                  </Button>
                </div>
              </>
            )}
          </Dialog>
        </Modal>
      </ModalOverlay>
    </DialogTrigger>
  )
}
