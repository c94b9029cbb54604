/**
 * Pages of their own for what is not a normal page: not found, forbidden, service unreachable, a
 * page that failed. With a session, "not found" keeps the console's frame (navigation, account
 * menu) around it.
 */
import { Link, useRouter, type ErrorComponentProps } from '@tanstack/react-router'
import { lazy, Suspense, useEffect } from 'react'
import { ApiError, NetworkError } from '../api/errors'
import { loadSignedInCatalogues, useI18n } from '../i18n/i18n'
import { Page } from '../ui/page'
import { NotFoundContent, StatusFrame } from './NotFoundContent'
import { hasSession, SessionPreferences } from './SessionPreferences'

// The frame's code and words load only for someone with a session (the sign-in page's budget).
const FramedNotFound = lazy(() =>
  Promise.all([import('./FramedNotFound'), loadSignedInCatalogues()]).then(([module]) => ({
    default: module.FramedNotFound,
  })),
)

export function NotFoundPage() {
  const session = hasSession()
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

/**
 * A page for what went wrong while loading or showing a page. The service out of reach (no answer,
 * or a proxy's or the service's "unavailable") gets the offline page; any other failure — an error
 * the API answered, or a fault in the console itself — says what went wrong instead of blaming the
 * connection, and a fault of the console's own is written to the browser's console for whoever
 * investigates.
 */
export function ErrorPage({ error, reset }: ErrorComponentProps) {
  const router = useRouter()
  const retry = () => {
    reset()
    void router.invalidate()
  }
  if (error instanceof ApiError && error.status === 403) return <ForbiddenPage />
  if (error instanceof ApiError && error.status === 404) return <NotFoundPage />
  if (error instanceof NetworkError || (error instanceof ApiError && UNREACHABLE.has(error.status)))
    return <OfflinePage onRetry={retry} />
  return <ProblemPage error={error} onRetry={retry} />
}

/** Statuses that mean the service did not answer for itself: offline, in effect. */
const UNREACHABLE = new Set([502, 503, 504])

function ProblemPage({ error, onRetry }: { error: unknown; onRetry: () => void }) {
  const { t, reason } = useI18n()
  useEffect(() => {
    if (!(error instanceof ApiError)) console.error(error)
  }, [error])
  return (
    <StatusFrame>
      <SessionPreferences />
      <Page
        title={t('status.problem.title')}
        description={
          error instanceof ApiError ? reason(error.reason, error.message) : t('reason.UNKNOWN')
        }
      >
        <button type="button" className="button button-primary" onClick={onRetry}>
          {t('status.retry')}
        </button>
      </Page>
    </StatusFrame>
  )
}
