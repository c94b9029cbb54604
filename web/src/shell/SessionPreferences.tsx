/**
 * With a session (its readable CSRF cookie is there) the person's language and theme, applied to
 * pages outside the signed-in frame too — the root layout, and the error page that replaces it;
 * without one nothing more loads (the sign-in page's size budget, and no /api/users/me for a
 * visitor).
 */
import { lazy, Suspense } from 'react'
import { readCookie } from '../api/client'

const RootPreferences = lazy(() =>
  import('../api/query-root').then((module) => ({ default: module.RootPreferences })),
)

export function hasSession(): boolean {
  return readCookie('__Host-csrf_token') !== null || readCookie('csrf_token') !== null
}

export function SessionPreferences() {
  if (!hasSession()) return null
  return (
    <Suspense fallback={null}>
      <RootPreferences />
    </Suspense>
  )
}
