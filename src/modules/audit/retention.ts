/**
 * Retention of failed sign-in audit events: a flood of wrong passwords or
 * codes must not grow the audit log without bound, so `auth.login_failed`, `auth.mfa_verify_failed`
 * and `auth.passkey_failed` events older than FAILED_LOGIN_RETENTION_DAYS (default 90)
 * are removed at start and then every hour. Every other event is kept. Several instances may purge
 * at once: the deletes are idempotent.
 *
 * Removing an event *redacts* it — its row (the content) goes, its leaf hash stays in the
 * Merkle tree, so every proof and checkpoint still verifies — and each batch is recorded in the
 * same transaction as an `audit.redact` event naming the leaves, which is what lets a verifier tell
 * a redaction from a deletion.
 */
import type { FastifyInstance } from 'fastify'
import { nextTurn } from '../../lib/event-loop-turns.js'
import type { Deps } from '../../deps.js'
import type { Executor } from '../../db/schema.js'
import { runWhileOpen } from '../../plugins/periodic.js'
import { materializeTree } from './checkpoints.js'
import { recordAudit } from './service.js'
import { REDACT_ACTION } from './verify.js'

export const FAILED_SIGN_IN_ACTIONS = [
  'auth.login_failed',
  'auth.mfa_verify_failed',
  'auth.passkey_failed',
] as const

const PURGE_INTERVAL_MS = 60 * 60 * 1000
/** Rows per delete, so a first purge of a large log does not hold the write lock for long. */
const BATCH = 1000

async function deleteBatch(deps: Deps, before: string): Promise<number> {
  return deps.db.transaction().execute(async (tx) => {
    // The leaf hashes of recent appends are stored lazily (checkpoints.ts): store them before any
    // content goes, so that a removed event's leaf hash is kept.
    await materializeTree(tx)
    const rows = await tx
      .selectFrom('audit_events')
      .select(['id', 'leaf_index'])
      .where('action', 'in', [...FAILED_SIGN_IN_ACTIONS])
      .where('at', '<', before)
      .orderBy('leaf_index')
      .limit(BATCH)
      .forUpdate()
      .execute()
    if (rows.length === 0) return 0
    const result = await tx
      .deleteFrom('audit_events')
      .where(
        'id',
        'in',
        rows.map((r) => r.id),
      )
      .executeTakeFirst()
    const removed = Number(result.numDeletedRows)
    // Another instance may have taken some of these rows first: the record names what this one
    // removed.
    if (removed === rows.length)
      await redactionRecord(
        tx,
        deps,
        rows.map((r) => Number(r.leaf_index)),
      )
    else {
      const left = await tx
        .selectFrom('audit_events')
        .select('id')
        .where(
          'id',
          'in',
          rows.map((r) => r.id),
        )
        .execute()
      const kept = new Set(left.map((r) => r.id))
      await redactionRecord(
        tx,
        deps,
        rows.filter((r) => !kept.has(r.id)).map((r) => Number(r.leaf_index)),
      )
    }
    return removed
  })
}

async function redactionRecord(tx: Executor, deps: Deps, leaves: number[]): Promise<void> {
  if (leaves.length === 0) return
  await recordAudit(
    tx,
    deps.clock,
    { ip: null, userAgent: null },
    {
      action: REDACT_ACTION,
      actor: null,
      metadata: {
        reason: 'retention',
        retention_days: deps.config.failedLoginRetentionDays,
        leaves,
      },
    },
  )
}

/**
 * Removes failed sign-in events older than the retention, a batch at a time; returns how many. An
 * aborted `signal` (the service closing) stops it before the next batch.
 */
export async function purgeExpiredFailedSignIns(deps: Deps, signal?: AbortSignal): Promise<number> {
  const before = new Date(
    deps.clock.now().getTime() - deps.config.failedLoginRetentionDays * 86_400_000,
  ).toISOString()
  let total = 0
  while (!signal?.aborted) {
    const removed = await deleteBatch(deps, before)
    total += removed
    if (removed < BATCH) break
    // Requests get their turn between batches: on SQLite each batch runs without one.
    await nextTurn()
  }
  return total
}

/** Runs the purge when the application is ready and then hourly, until it closes. */
export function installAuditRetention(app: FastifyInstance, deps: Deps): void {
  runWhileOpen(app, {
    everyMs: PURGE_INTERVAL_MS,
    atReady: true,
    pass: async (signal) => {
      const removed = await purgeExpiredFailedSignIns(deps, signal)
      if (removed > 0)
        deps.logger.info({ removed }, 'purged failed sign-in audit events past their retention')
    },
    onError: (error) =>
      deps.logger.warn(
        { error: { message: error.message } },
        'could not purge old failed sign-in audit events',
      ),
  })
}
