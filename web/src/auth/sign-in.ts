/** What every way of signing in ends with, and the pending second step kept in memory only. */
import type { User } from '../api/queries'
import { safeReturnTo, takeRememberedReturnTo } from './return-to'

/**
 * The mfa_token of a password step: in memory, never in a URL or storage; lost on reload by design.
 */
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
export function finishSignIn(
  user: User,
  returnTo: string | undefined,
  navigate: (to: string) => void,
): void {
  pendingMfaToken = null
  // Read either way, so an address kept for a provider's sign-in is not used by a later one.
  const remembered = takeRememberedReturnTo()
  const target = safeReturnTo(returnTo) ?? remembered ?? '/links'
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

const BACKUP_CODE_USED = 'switchboard.backup-code-used'

/**
 * Marks that this sign-in spent a backup code (a flag only, never the code), for the signed-in
 * frame to report.
 */
export function noteBackupCodeUsed(): void {
  try {
    window.sessionStorage.setItem(BACKUP_CODE_USED, '1')
  } catch {
    // Storage refused (private mode): the notice is a courtesy, the security page shows the count
    // anyway.
  }
}

/** Whether the last sign-in spent a backup code; reading clears it, so the notice shows once. */
export function takeBackupCodeUsed(): boolean {
  try {
    const used = window.sessionStorage.getItem(BACKUP_CODE_USED) === '1'
    window.sessionStorage.removeItem(BACKUP_CODE_USED)
    return used
  } catch {
    return false
  }
}
