/**
 * Pages of their own for what is not a normal page: not found, forbidden, service unreachable. With
 * a session, "not found" keeps the console's frame (navigation, account menu) around it.
 */
import { Link, useRouter, type ErrorComponentProps } from '@tanstack/react-router'
import { lazy, Suspense } from 'react'
import { readCookie } from '../api/client'
import { ApiError, NetworkError } from '../api/errors'
import { loadSignedInCatalogues, useI18n } from '../i18n/i18n'
import { Page } from '../ui/page'
import { NotFoundContent, StatusFrame } from './NotFoundContent'

// The frame's code and words load only for someone with a session (the sign-in page's budget).
const FramedNotFound = lazy(() =>
  Promise.all([import('./FramedNotFound'), loadSignedInCatalogues()]).then(([module]) => ({
    default: module.FramedNotFound,
  })),
)

export function NotFoundPage() {
  const session = readCookie('__Host-csrf_token') !== null || readCookie('csrf_token') !== null
  if (!session) return <NotFoundContent />
  return (
    <Suspense fallback={null}>
      <FramedNotFound />
    </Suspense>
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
