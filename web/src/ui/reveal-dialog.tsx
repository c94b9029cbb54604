/**
 * A secret shown once, where the person is: a modal dialog that takes focus as it opens, offers
 * Copy and Download, and closes only through its button once "I have saved …" is checked — not by
 * Escape or a click outside, so nobody loses the secret by accident.
 */
import { useId, useState, type ReactNode } from 'react'
import { Dialog, Heading, Modal, ModalOverlay } from 'react-aria-components'
import { CopyButton } from './secret'

/** Offers `text` as a file to save. */
export function downloadText(text: string, filename: string): void {
  const url = URL.createObjectURL(new Blob([text], { type: 'text/plain;charset=utf-8' }))
  const anchor = document.createElement('a')
  anchor.href = url
  anchor.download = filename
  anchor.click()
  window.setTimeout(() => URL.revokeObjectURL(url), 1000)
}

export function RevealDialog({
  title,
  warning,
  children,
  copy,
  download,
  extraActions,
  savedLabel,
  doneLabel,
  onDone,
  testId,
}: {
  title: string
  warning: string
  children: ReactNode
  copy: { text: string; label: string }
  download: { text: string; filename: string; label: string }
  extraActions?: ReactNode
  savedLabel: string
  doneLabel: string
  onDone: () => void
  testId?: string
}) {
  const [saved, setSaved] = useState(false)
  const checkboxId = useId()
  return (
    <ModalOverlay className="modal-overlay" isOpen isDismissable={false} isKeyboardDismissDisabled>
      <Modal className="modal modal-reveal">
        <Dialog className="dialog reveal printable" data-testid={testId}>
          <Heading slot="title">{title}</Heading>
          <p className="warning">{warning}</p>
          {children}
          <div className="row no-print">
            <CopyButton text={copy.text} label={copy.label} />
            <button
              type="button"
              className="button button-secondary"
              onClick={() => downloadText(download.text, download.filename)}
            >
              {download.label}
            </button>
            {extraActions}
          </div>
          <div className="checkbox no-print">
            <input
              id={checkboxId}
              type="checkbox"
              checked={saved}
              onChange={(event) => setSaved(event.target.checked)}
            />
            <label htmlFor={checkboxId}>{savedLabel}</label>
          </div>
          <div className="dialog-actions no-print">
            <button
              type="button"
              className="button button-primary"
              aria-disabled={!saved}
              onClick={() => saved && onDone()}
            >
              {doneLabel}
            </button>
          </div>
        </Dialog>
      </Modal>
    </ModalOverlay>
  )
}
