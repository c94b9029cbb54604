/**
 * The audited write, timed in-process on SQLite, for bench/audit.mjs (one build) and
 * bench/audit-ab.mjs (two builds A/B): a build's app on a SQLite file of its own, its checkpointer
 * as the service runs it (it stores the pending tree nodes and signs), and two writes
 * to time in a transaction beside the change they record — the event insert alone (an audited
 * write without the Merkle tree) and recordAudit with its leaf. The turns of the event loop between
 * the transactions are timed too: SQLite's WAL checkpoint runs there (db/sqlite-checkpoint.ts), so
 * what it costs the requests waiting behind it is shown, not hidden.
 */
import fs from 'node:fs'
import os from 'node:os'
import path from 'node:path'
import { performance } from 'node:perf_hooks'

/** `dist`: the build's dist/ folder; `transactions`: how many one call of `time` runs. */
export async function auditRig(dist, transactions) {
  const load = (p) => import(new URL(p, dist).href)
  const [
    { parseConfig },
    { createDeps },
    { migrateToLatest },
    { recordAudit },
    { createLogger },
    { newId },
    { makeCheckpoint, startCheckpointer },
  ] = await Promise.all([
    load('config.js'),
    load('deps.js'),
    load('db/migrate.js'),
    load('modules/audit/service.js'),
    load('logger.js'),
    load('lib/ids.js'),
    load('modules/audit/checkpoints.js'),
  ])
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'audit-rig-'))
  const deps = createDeps(parseConfig({ DATA_DIR: dir, LOG_LEVEL: 'silent' }), {
    logger: createLogger({ logLevel: 'silent' }),
  })
  await migrateToLatest(deps.database)
  const ctx = { ip: '198.51.100.7', userAgent: 'bench' }
  const actor = { id: 'user-1', email: 'user1@example.com' }
  const plain = (tx) =>
    tx
      .insertInto('audit_events')
      .values({
        id: newId(),
        at: new Date().toISOString(),
        actor_id: actor.id,
        actor_email: actor.email,
        action: 'bench.change',
        target_type: 'user',
        target_id: 'user-2',
        ip: ctx.ip,
        user_agent: ctx.userAgent,
        subject_user_id: 'user-2',
        metadata: JSON.stringify({ fields: ['name'] }),
      })
      .execute()
  const audited = (tx) =>
    recordAudit(tx, deps.clock, ctx, {
      action: 'bench.change',
      actor,
      target: { type: 'user', id: 'user-2' },
      metadata: { fields: ['name'] },
    })

  // The service's own checkpointer (installCheckpointer's), or — in a build from before
  // startCheckpointer — what that build's did: every second, one at a time. A failure ends the
  // bench.
  let made = 0
  const fail = (error) => {
    throw error
  }
  let checkpointer
  if (startCheckpointer !== undefined) checkpointer = startCheckpointer(deps, fail, () => made++)
  else {
    let running = null
    const timer = setInterval(() => {
      running ??= makeCheckpoint(deps).then(() => {
        made++
        running = null
      }, fail)
    }, 1000)
    checkpointer = {
      async stop() {
        clearInterval(timer)
        await running
      },
    }
  }

  /**
   * Times `write` in `transactions` transactions: each one's milliseconds, each turn's between them
   * (where the service's housekeeping runs: the WAL checkpoint, the checkpointer), and the CPU
   * milliseconds of all.
   */
  const time = async (write) => {
    const samples = []
    const turns = []
    let cpu = process.cpuUsage()
    for (let i = 0; i < transactions; i++) {
      const started = performance.now()
      await deps.db.transaction().execute(async (tx) => {
        // The change the event records: an update in the same transaction, as a real request makes.
        await tx.updateTable('audit_monitor').set({ checked_size: i }).where('id', '=', 1).execute()
        await write(tx)
      })
      samples.push(performance.now() - started)
      // A turn of the event loop between requests, as a server has: node:sqlite answers within
      // microtasks, so without it no timer — the checkpointer — would ever run during a round.
      const turn = performance.now()
      await new Promise((resolve) => setImmediate(resolve))
      turns.push(performance.now() - turn)
    }
    cpu = process.cpuUsage(cpu)
    return { samples, turns, cpuMs: (cpu.user + cpu.system) / 1000 }
  }

  return {
    plain,
    audited,
    time,
    checkpoints: () => made,
    async close() {
      await checkpointer.stop()
      await deps.close()
      fs.rmSync(dir, { recursive: true, force: true })
    },
  }
}
