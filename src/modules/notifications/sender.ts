/**
 * The background sender of the mail outbox. Every instance polls for due rows every second,
 * claims each with a conditional update (so of several instances exactly one sends a row), and
 * sends one message at a time: a stalled SMTP server holds this loop (up to the mailer's timeout),
 * never a request. When SMTP is not configured the row is marked `skipped` (recorded only).
 * A failed attempt is retried with backoff (30 s, 2 min, 8 min, 32 min); after MAX_ATTEMPTS the row
 * is marked `failed` and a warning is logged. Rows survive restarts: a row claimed by an instance
 * that died is retried when its lease ends.
 */
import type { FastifyInstance } from 'fastify'
import type { Deps } from '../../deps.js'
import { AppError } from '../../errors.js'
import { addSeconds } from '../../lib/time.js'
import { runWhileOpen } from '../../plugins/periodic.js'
import { isMailConfigured, sendMail } from '../mail/service.js'
import type { NotificationKind, NotificationParams } from './kinds.js'
import { claimRow, findDueRows, finishRow, retryRowAt, type OutboxRow } from './repo.js'
import { renderNotification } from './templates.js'

const POLL_INTERVAL_MS = 1000
const BATCH = 20
export const MAX_ATTEMPTS = 5
/**
 * Longer than one delivery can take (the mailer's stage timeouts), so a live attempt is never taken
 * over.
 */
const LEASE_SECONDS = 5 * 60

export function backoffSeconds(attempt: number): number {
  return 30 * 4 ** (attempt - 1)
}

async function deliver(deps: Deps, row: OutboxRow): Promise<void> {
  const now = deps.clock.now()
  if (!(await claimRow(deps.db, row, addSeconds(now, LEASE_SECONDS).toISOString()))) return
  const attempt = row.attempts + 1
  if (!(await isMailConfigured(deps))) {
    await finishRow(deps.db, row.id, 'skipped', now.toISOString(), null)
    return
  }
  const mail = renderNotification(
    row.kind as NotificationKind,
    row.language,
    JSON.parse(row.params) as NotificationParams,
    deps.config.publicUrl,
  )
  try {
    await sendMail(deps, { to: row.recipient, ...mail })
    await finishRow(deps.db, row.id, 'sent', deps.clock.now().toISOString(), null)
  } catch (error) {
    // sendMail's messages name the failed stage only (mail/mailer.ts): safe to keep and log.
    const reason = error instanceof AppError ? error.message : 'unexpected error'
    if (!(error instanceof AppError))
      deps.logger.error(
        { error: { message: (error as Error).message } },
        'security notification failed unexpectedly',
      )
    if (attempt >= MAX_ATTEMPTS) {
      await finishRow(deps.db, row.id, 'failed', deps.clock.now().toISOString(), reason)
      deps.logger.warn(
        { notification: { id: row.id, kind: row.kind, attempts: attempt }, smtp: reason },
        'security notification given up',
      )
    } else {
      await retryRowAt(
        deps.db,
        row.id,
        addSeconds(deps.clock.now(), backoffSeconds(attempt)).toISOString(),
        reason,
      )
      deps.logger.info(
        { notification: { id: row.id, kind: row.kind, attempts: attempt }, smtp: reason },
        'security notification will be retried',
      )
    }
  }
}

/** One pass over the due rows; resolves when each has been attempted. */
export async function sendDueNotifications(deps: Deps, signal?: AbortSignal): Promise<void> {
  const rows = await findDueRows(deps.db, deps.clock.now().toISOString(), BATCH)
  for (const row of rows) {
    // Closing: the rows not yet claimed stay due for the next start (or another instance).
    if (signal?.aborted) return
    await deliver(deps, row)
  }
}

/** Polls every second from `onReady` until the application closes; one pass at a time. */
export function installNotificationSender(app: FastifyInstance, deps: Deps): void {
  runWhileOpen(app, {
    everyMs: POLL_INTERVAL_MS,
    atReady: false,
    pass: (signal) => sendDueNotifications(deps, signal),
    onError: (error) =>
      deps.logger.warn(
        { error: { message: error.message } },
        'could not process the security notification outbox',
      ),
  })
}
