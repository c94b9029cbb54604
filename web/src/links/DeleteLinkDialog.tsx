/**
 * The confirmation before a link is deleted: it names the link and, when it has one, its go-link.
 */
import { Dialog, Heading, Modal, ModalOverlay } from 'react-aria-components'
import { useI18n } from '../i18n/i18n'
import { readableUrl } from './display-url'
import type { Link } from './queries'

export function DeleteLinkDialog({
  link,
  pending,
  onConfirm,
  onClose,
}: {
  link: Link
  pending: boolean
  onConfirm: () => void
  onClose: () => void
}) {
  const { t } = useI18n()
  return (
    <ModalOverlay
      className="modal-overlay"
      isDismissable
      isOpen
      onOpenChange={(open) => !open && onClose()}
    >
      <Modal className="modal">
        <Dialog className="dialog" role="alertdialog">
          <Heading slot="title">
            {t('links.deleteTitle', { name: link.title ?? readableUrl(link.url) })}
          </Heading>
          <div className="dialog-body">
            <p>
              {link.slug === null
                ? t('links.deleteText')
                : t('links.deleteTextSlug', { slug: link.slug })}
            </p>
          </div>
          <div className="dialog-actions">
            <button type="button" className="button button-secondary" onClick={onClose}>
              {t('common.cancel')}
            </button>
            <button
              type="button"
              className="button button-danger"
              aria-busy={pending || undefined}
              onClick={() => !pending && onConfirm()}
            >
              {t('links.deleteConfirm')}
            </button>
          </div>
        </Dialog>
      </Modal>
    </ModalOverlay>
  )
}
