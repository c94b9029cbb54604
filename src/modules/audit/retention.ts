/**
 * Retention of failed sign-in audit events (issue #11 item 18): a flood of wrong passwords or
 * codes must not grow the audit log without bound, so `auth.login_failed`, `auth.mfa_verify_failed`
 * and `auth.passkey_failed` (issue 14) events older than FAILED_LOGIN_RETENTION_DAYS (default 90)
 * are removed at start and then every hour. Every other event is kept. Several instances may purge at once:
 * the deletes are idempotent.
 */
import type { FastifyInstance } from 'fastify'
import type { Deps } from '../../deps.js'
import type { Executor } from '../../db/schema.js'

export const FAILED_SIGN_IN_ACTIONS = ['auth.login_failed', 'auth.mfa_verify_failed', 'auth.passkey_failed'] as const

const PURGE_INTERVAL_MS = 60 * 60 * 1000
/** Rows per delete, so a first purge of a large log does not hold the write lock for long. */
const BATCH = 1000

async function deleteBatch(ex: Executor, before: string): Promise<number> {
  const result = await ex
    .deleteFrom('audit_events')
    .where('id', 'in', (eb) =>
      eb
        .selectFrom('audit_events')
        .select('id')
        .where('action', 'in', [...FAILED_SIGN_IN_ACTIONS])
        .where('at', '<', before)
        .limit(BATCH),
    )
    .executeTakeFirst()
  return Number(result.numDeletedRows)
}

/** Removes failed sign-in events older than the retention; returns how many. */
export async function purgeExpiredFailedSignIns(deps: Deps): Promise<number> {
  const before = new Date(deps.clock.now().getTime() - deps.config.failedLoginRetentionDays * 86_400_000).toISOString()
  let total = 0
  for (;;) {
    const removed = await deleteBatch(deps.db, before)
    total += removed
    if (removed < BATCH) return total
  }
}

/** Runs the purge when the application is ready and then hourly, until it closes. */
export function installAuditRetention(app: FastifyInstance, deps: Deps): void {
  let timer: NodeJS.Timeout | undefined
  const run = () => {
    purgeExpiredFailedSignIns(deps).then(
      (removed) => removed > 0 && deps.logger.info({ removed }, 'purged failed sign-in audit events past their retention'),
      (error: Error) => deps.logger.warn({ error: { message: error.message } }, 'could not purge old failed sign-in audit events'),
    )
  }
  app.addHook('onReady', async () => {
    run()
    timer = setInterval(run, PURGE_INTERVAL_MS)
    timer.unref()
  })
  app.addHook('onClose', async () => clearInterval(timer))
}
