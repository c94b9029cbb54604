/** Pages of their own for what is not a normal page: not found, forbidden, service unreachable. */
import { Link, useRouter, type ErrorComponentProps } from '@tanstack/react-router'
import { ApiError, NetworkError } from '../api/errors'
import { useI18n } from '../i18n/i18n'
import { Page } from '../ui/page'

function StatusFrame({ children }: { children: React.ReactNode }) {
  return (
    <main id="main" className="status-frame">
      {children}
    </main>
  )
}

export function NotFoundPage() {
  const { t } = useI18n()
  return (
    <StatusFrame>
      <Page title={t('status.notFound.title')} description={t('status.notFound.text')}>
        <Link to="/" className="button button-secondary">
          {t('status.home')}
        </Link>
      </Page>
    </StatusFrame>
  )
}

export function ForbiddenPage() {
  const { t } = useI18n()
  return (
    <StatusFrame>
      <Page title={t('status.forbidden.title')} description={t('status.forbidden.text')}>
        <Link to="/" className="button button-secondary">
          {t('status.home')}
        </Link>
      </Page>
    </StatusFrame>
  )
}

export function OfflinePage({ onRetry }: { onRetry: () => void }) {
  const { t } = useI18n()
  return (
    <StatusFrame>
      <Page title={t('status.offline.title')} description={t('status.offline.text')}>
        <button type="button" className="button button-primary" onClick={onRetry}>
          {t('status.retry')}
        </button>
      </Page>
    </StatusFrame>
  )
}

export function ErrorPage({ error, reset }: ErrorComponentProps) {
  const router = useRouter()
  const retry = () => {
    reset()
    void router.invalidate()
  }
  if (error instanceof ApiError && error.status === 403) return <ForbiddenPage />
  if (error instanceof ApiError && error.status === 404) return <NotFoundPage />
  if (error instanceof NetworkError || (error instanceof ApiError && error.status >= 500))
    return <OfflinePage onRetry={retry} />
  return <OfflinePage onRetry={retry} />
}
