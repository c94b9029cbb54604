/**
 * Watching the audit log: the database integrity check (integrity.ts) at start and then
 * hourly (from the prefix the last one verified, integrity-prefix.ts), its result kept for the
 * console and logged, and the administrators mailed when it fails;
 * and once a day the current signed checkpoint sent outside the server — mailed to the
 * administrators and, when one is set, POSTed to the anchoring webhook (lib/outbound.ts rules) — so
 * a checkpoint exists that someone who can write to the database cannot rewrite.
 *
 * Several instances run this: a failure is mailed by the one instance whose conditional update
 * records it first, and each channel of the day's anchoring is claimed by one instance
 * (audit_monitor row) and kept only when the checkpoint was delivered on it — otherwise tried again
 * the next hour.
 */
import type { FastifyInstance } from 'fastify'
import type { Deps } from '../../deps.js'
import { createOutboundFetch } from '../../lib/outbound.js'
import { isMailConfigured, sendMail } from '../mail/service.js'
import { makeCheckpoint } from './checkpoints.js'
import { checkDatabaseFully, type IntegrityResult, type VerifiedPrefix } from './integrity.js'
import { checkSince } from './integrity-prefix.js'
import {
  claimAnchoring,
  listActiveAdminEmails,
  readMonitor,
  recordCheck,
  releaseAnchoring,
} from './tree.repo.js'
import { describeProblem } from './verify.js'

const CHECK_INTERVAL_MS = 60 * 60 * 1000
const ANCHOR_INTERVAL_MS = 24 * 60 * 60 * 1000
const WEBHOOK_MAX_RESPONSE_BYTES = 64 * 1024
const WEBHOOK_TIMEOUT_MS = 10_000

async function mailAdministrators(deps: Deps, subject: string, text: string): Promise<number> {
  if (!(await isMailConfigured(deps))) {
    deps.logger.warn(
      { subject },
      'no mail to the administrators: outgoing mail (SMTP) is not configured',
    )
    return 0
  }
  let sent = 0
  for (const to of await listActiveAdminEmails(deps.db)) {
    try {
      await sendMail(deps, { to, subject, text })
      sent++
    } catch (error) {
      deps.logger.warn(
        { error: { message: (error as Error).message } },
        'could not mail an administrator about the audit log',
      )
    }
  }
  return sent
}

/** What the last passed check verified, per running service (integrity-prefix.ts). */
const verified = new WeakMap<Deps, VerifiedPrefix>()

/**
 * Runs the check, records and logs it, and mails the administrators about a new failure. `full`:
 * the whole log; otherwise from what the last passed check of this process verified (the hourly
 * check), with the same findings
 * (docs/decisions/0054-periodic-audit-check-from-a-verified-prefix.md).
 */
export async function runIntegrityCheck(
  deps: Deps,
  { full = true }: { full?: boolean } = {},
): Promise<IntegrityResult> {
  // The check's reads go through a connection of their own (db/client.ts withOwnReader).
  const { result, prefix, from } = await deps.database.withOwnReader((db) =>
    full
      ? checkDatabaseFully({ ...deps, db })
      : checkSince({ ...deps, db }, verified.get(deps) ?? null),
  )
  if (prefix === null) verified.delete(deps)
  else verified.set(deps, prefix)
  const problem = result.problem === null ? null : describeProblem(result.problem)
  const news = await recordCheck(deps.db, {
    at: deps.clock.now().toISOString(),
    ok: result.ok,
    problem,
    size: result.size,
  })
  if (result.ok) {
    deps.logger.info(
      { leaves: result.size, checkpoints: result.checkpoints, from },
      'audit log integrity check passed',
    )
    return result
  }
  deps.logger.error({ problem, leaves: result.size }, 'audit log integrity check FAILED')
  if (news) {
    await mailAdministrators(
      deps,
      'Switchboard: the audit log failed its integrity check',
      [
        `The audit log of ${deps.config.publicUrl} no longer matches its signed checkpoints:`,
        '',
        `  ${problem}`,
        '',
        'Someone may have changed the database directly. Keep the last checkpoints you received by mail, and check an',
        'export offline with `switchboard audit verify <export> --key <verifier key> --checkpoint <saved checkpoint>`.',
        '',
        `Verifier key: ${deps.auditSigner.verifierKey}`,
      ].join('\n'),
    )
  }
  return result
}

/**
 * Sends today's checkpoint out on each channel this instance claims; returns whether it delivered
 * it anywhere. A channel's claim is kept only when the checkpoint got through (a mail accepted for
 * at least one administrator; the webhook answering 2xx) and given back otherwise, so a day whose
 * mail could not go (no SMTP yet, the server down) or whose webhook failed is tried again at the
 * next hourly run, without mailing the administrators twice.
 */
export async function anchorCheckpoint(deps: Deps): Promise<boolean> {
  const now = deps.clock.now()
  const claimedAt = now.toISOString()
  const notBefore = new Date(now.getTime() - ANCHOR_INTERVAL_MS + 60_000).toISOString()
  const checkpoint = await makeCheckpoint(deps)
  if (checkpoint === null) return false
  let delivered = false
  const mail = await claimAnchoring(deps.db, 'mail', claimedAt, notBefore)
  if (mail !== undefined) {
    const sent = await mailAdministrators(
      deps,
      `Switchboard: audit log checkpoint of ${claimedAt.slice(0, 10)}`,
      [
        `The signed checkpoint of the audit log of ${deps.config.publicUrl} (${checkpoint.treeSize} events).`,
        'Keep this mail: it is a copy of the log that no one with access to the server can rewrite. Save the',
        'checkpoint below (from its first line to its last) as a file and check a later export against it with',
        '`switchboard audit verify <export> --key <verifier key> --checkpoint <file>`.',
        '',
        checkpoint.note.trimEnd(),
        '',
        `Verifier key: ${deps.auditSigner.verifierKey}`,
      ].join('\n'),
    )
    if (sent > 0) delivered = true
    else await releaseAnchoring(deps.db, 'mail', claimedAt, mail.previous)
  }
  const { anchorWebhookUrl } = await readMonitor(deps.db)
  if (anchorWebhookUrl !== null) {
    const webhook = await claimAnchoring(deps.db, 'webhook', claimedAt, notBefore)
    if (webhook !== undefined) {
      if (await postCheckpoint(deps, anchorWebhookUrl, checkpoint.treeSize, checkpoint.note))
        delivered = true
      else await releaseAnchoring(deps.db, 'webhook', claimedAt, webhook.previous)
    }
  }
  return delivered
}

/** POSTs the checkpoint to the anchoring webhook; true when it answered 2xx. */
async function postCheckpoint(
  deps: Deps,
  url: string,
  treeSize: number,
  note: string,
): Promise<boolean> {
  const fetch = createOutboundFetch({
    policy: deps.config.outbound,
    maxResponseBytes: WEBHOOK_MAX_RESPONSE_BYTES,
  })
  try {
    const response = await fetch(url, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({
        origin: deps.auditSigner.name,
        tree_size: treeSize,
        checkpoint: note,
        verifier_key: deps.auditSigner.verifierKey,
      }),
      signal: AbortSignal.timeout(WEBHOOK_TIMEOUT_MS),
    })
    if (response.ok) {
      deps.logger.info(
        { tree_size: treeSize, status: response.status },
        'audit checkpoint sent to the anchoring webhook',
      )
      return true
    }
    deps.logger.warn(
      { status: response.status },
      'the anchoring webhook refused the audit checkpoint; trying again within the hour',
    )
  } catch (error) {
    deps.logger.warn(
      { error: { message: (error as Error).message } },
      'could not send the audit checkpoint to the anchoring webhook; trying again within the hour',
    )
  }
  return false
}

/**
 * The check at start and hourly; the anchoring tried hourly (one instance sends once a day). Not
 * lib/periodic's work: closing does not wait for a check, which at start reads the whole log
 * (seconds at millions of events) and cannot stop halfway; one cut short is run at the next start.
 */
export function installAuditMonitor(app: FastifyInstance, deps: Deps): void {
  const timers: NodeJS.Timeout[] = []
  let started = false
  // The whole log at start; then hourly from what the last passed check verified.
  const check = () => {
    const full = !started
    started = true
    runIntegrityCheck(deps, { full })
      .catch((error: Error) =>
        deps.logger.error(
          { error: { message: error.message } },
          'could not run the audit log integrity check',
        ),
      )
      // What the whole check read is garbage now, which an idle service would keep until its heap
      // grew enough for V8 to collect it: one memory-reducing collection returns it, on a turn of
      // its own after the check's last part (lib/heap-release.ts).
      .finally(() => {
        if (full) deps.heap.afterLargeWork()
      })
  }
  const anchor = () => {
    anchorCheckpoint(deps).catch((error: Error) =>
      deps.logger.warn(
        { error: { message: error.message } },
        'could not anchor the audit log checkpoint',
      ),
    )
  }
  app.addHook('onReady', async () => {
    check()
    anchor()
    for (const [run, ms] of [
      [check, CHECK_INTERVAL_MS],
      [anchor, CHECK_INTERVAL_MS],
    ] as const) {
      const timer = setInterval(run, ms)
      timer.unref()
      timers.push(timer)
    }
  })
  app.addHook('onClose', async () => {
    for (const timer of timers) clearInterval(timer)
  })
}
