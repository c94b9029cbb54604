/** What every way of signing in ends with, and the pending second step kept in memory only. */
import type { User } from '../api/queries'
import { safeReturnTo } from './return-to'

/** The mfa_token of a password step: in memory, never in a URL or storage; lost on reload by design. */
let pendingMfaToken: string | null = null

export function setPendingMfaToken(token: string | null): void {
  pendingMfaToken = token
}

export function takePendingMfaToken(): string | null {
  return pendingMfaToken
}

/**
 * Stores the signed-in user and goes where the person was heading (a go-link is a server page). The
 * query cache loads here if this tab has not signed in before (it is not in the sign-in chunk).
 */
export function finishSignIn(user: User, returnTo: string | undefined, navigate: (to: string) => void): void {
  pendingMfaToken = null
  const target = safeReturnTo(returnTo) ?? '/links'
  if (target.startsWith('/go/')) {
    window.location.assign(target)
    return
  }
  void import('../api/query-client').then(({ queryClient }) => {
    queryClient.clear()
    queryClient.setQueryData(['me'], user)
    navigate(target)
  })
}
