#!/usr/bin/env node
/**
 * npm run bench:audit — the audit log's figures, on the built service (dist/). It prints
 * the measurements as JSON, then one line per figure, with its target:
 *
 *   1. the extra time an audited request pays (target: p99 < 2 ms on SQLite): recordAudit's
 *      transaction timed in-process on SQLite — an update plus the event insert alone (an audited
 *      write without the Merkle tree) against an update plus the event with its leaf append (head
 *      locked and read, event with its leaf number, head's size and frontier updated) — in
 *      alternating rounds; extra = p99(with) − p99(without). The tree's nodes are stored after the
 *      transaction (migration 0034): the checkpointer does it in the service (checkpoints.ts), and
 *      does it here too, on the same connection while the rounds run, so a transaction that waits
 *      for it counts. SQLite's WAL checkpoint runs between transactions (db/sqlite-checkpoint.ts):
 *      the turns between them are timed and printed as well — what a request arriving during one
 *      waits;
 *   2. `verify` of a 1,000,000-event export (target: < 10 s on the 2-core machine): the file is
 *      written with the production leaf form, tree and signer (no database needed), then verified
 *      three times by the CLI's own function as the CLI runs it (worker threads, one per core), and
 *      three times on the main thread alone (`--threads 0`), alternating; wall and CPU seconds of
 *      each run (CPU of all threads). The verdict is on the slowest of the three;
 *   3. proof sizes at 1,000,000 leaves (target: ≤ 20 hashes for an inclusion proof): the longest
 *      inclusion and consistency proofs over sampled leaves and sizes.
 *
 *   --events <n>   events in the export (default 1,000,000; a smaller number for a quick smoke run)
 *   --audits <n>   audited writes timed per round (default 2,000)
 *   --verify-only  the verify figure alone
 *
 * The machine's load is printed with the figures: on a loaded machine the wall times are not the
 * service's; the CPU times are closer to them.
 */
import fs from 'node:fs'
import os from 'node:os'
import path from 'node:path'
import { parseArgs } from 'node:util'
import { performance } from 'node:perf_hooks'
import { auditRig } from './audit-rig.mjs'

const { values } = parseArgs({
  options: {
    events: { type: 'string' },
    audits: { type: 'string' },
    'verify-only': { type: 'boolean' },
  },
})
const EVENTS = Number(values.events ?? 1_000_000)
const AUDITS = Number(values.audits ?? 2000)

const dist = new URL('../dist/', import.meta.url)
const load = (p) => import(new URL(p, dist).href)
const [
  { leafText },
  merkle,
  { createAuditSigner },
  { signCheckpoint },
  { verifyExportFile },
  signedNote,
] = await Promise.all([
  load('modules/audit/leaf.js'),
  load('lib/merkle.js'),
  load('modules/audit/signer.js'),
  load('modules/audit/checkpoints.js'),
  load('modules/audit/export-verifier.js'),
  load('lib/signed-note.js'),
])

const quantile = (sorted, q) => sorted[Math.min(sorted.length - 1, Math.floor(q * sorted.length))]
const ms = (x) => Math.round(x * 1000) / 1000

/** The export file of `count` events, written as the service writes it. */
function writeExport(file, count) {
  const signer = createAuditSigner('https://sso.example.com', signedNote.generateSigningKey())
  const tree = merkle.Frontier.empty()
  const fd = fs.openSync(file, 'w')
  const lines = []
  const header = {
    type: 'switchboard-audit-export',
    version: 1,
    checkpoint: '',
    verifier_key: signer.verifierKey,
    tree_size: count,
    subset: false,
  }
  const start = Date.UTC(2025, 0, 1)
  const body = []
  for (let i = 0; i < count; i++) {
    const event = {
      id: `01JEVENT${String(i).padStart(18, '0')}`,
      at: new Date(start + i * 1000).toISOString(),
      actor_id: `user-${i % 500}`,
      actor_email: `user${i % 500}@example.com`,
      action: ['auth.login', 'org.update', 'link.create', 'admin.user_update'][i % 4],
      target_type: 'user',
      target_id: `user-${(i * 7) % 500}`,
      ip: `198.51.100.${i % 250}`,
      user_agent: i % 3 === 0 ? null : 'Mozilla/5.0 (X11; Linux x86_64) Chrome/131.0',
      subject_user_id: `user-${i % 500}`,
      metadata: { fields: ['name', 'email'], n: i },
    }
    // As verifiable-export.ts writes it: the event last, its leaf verbatim.
    const leaf = leafText(event)
    const hash = merkle.leafHashOfText(leaf)
    tree.append(hash)
    body.push(`{"leaf_index":${i},"leaf_hash":"${hash.toString('base64')}","event":${leaf}}`)
    if (body.length === 10_000) {
      lines.push(body.join('\n') + '\n')
      body.length = 0
    }
  }
  if (body.length > 0) lines.push(body.join('\n') + '\n')
  header.checkpoint = signCheckpoint(signer, count, tree.root())
  fs.writeSync(fd, JSON.stringify(header) + '\n')
  for (const chunk of lines) fs.writeSync(fd, chunk)
  fs.closeSync(fd)
  return signer.verifierKey
}

async function verifyFigure() {
  const file = path.join(fs.mkdtempSync(path.join(os.tmpdir(), 'audit-bench-')), 'export.jsonl')
  const key = writeExport(file, EVENTS)
  const bytes = fs.statSync(file).size
  const runs = { default: [], alone: [] }
  const cpu = { default: [], alone: [] }
  for (let i = 0; i < 3; i++) {
    for (const [variant, options] of [
      ['default', {}],
      ['alone', { threads: 0 }],
    ]) {
      const started = performance.now()
      const used = process.cpuUsage()
      const result = await verifyExportFile(file, { verifierKey: key, ...options })
      const spent = process.cpuUsage(used)
      runs[variant].push((performance.now() - started) / 1000)
      cpu[variant].push((spent.user + spent.system) / 1e6)
      if (!result.ok)
        throw new Error(`the bench export does not verify: ${JSON.stringify(result.problem)}`)
    }
  }
  fs.rmSync(path.dirname(file), { recursive: true, force: true })
  const round = (list) => list.map((s) => Math.round(s * 100) / 100)
  // On a shared machine the wall time follows the load; the CPU time is what the check costs.
  return {
    events: EVENTS,
    file_mib: Math.round(bytes / 1048576),
    worker_threads: os.availableParallelism(),
    wall_s: round(runs.default),
    cpu_s: round(cpu.default),
    main_thread_alone: { wall_s: round(runs.alone), cpu_s: round(cpu.alone) },
  }
}

function proofFigure() {
  const node = (level, index) => merkle.leafHash(Buffer.from(`${level}:${index}`))
  const size = 1_000_000
  let inclusion = 0
  for (let i = 0; i < size; i += 997)
    inclusion = Math.max(inclusion, merkle.inclusionProof(i, size, node).length)
  inclusion = Math.max(inclusion, merkle.inclusionProof(size - 1, size, node).length)
  let consistency = 0
  for (let m = 1; m < size; m += 1009)
    consistency = Math.max(consistency, merkle.consistencyProof(m, size, node).length)
  return {
    leaves: size,
    longest_inclusion_proof: inclusion,
    longest_consistency_proof: consistency,
  }
}

/**
 * The audit write's own cost on SQLite, in-process: the event alone against the event with its leaf
 * (bench/audit-rig.mjs).
 */
async function auditCostFigure() {
  const rig = await auditRig(dist, AUDITS)
  const cpuMs = { plain: 0, leaf: 0 }
  await rig.time(rig.audited)
  await rig.time(rig.plain)
  const plain = []
  const leaf = []
  const turns = []
  for (let round = 0; round < 5; round++) {
    const without = await rig.time(rig.plain)
    plain.push(...without.samples)
    turns.push(...without.turns)
    cpuMs.plain += without.cpuMs
    const withLeaf = await rig.time(rig.audited)
    leaf.push(...withLeaf.samples)
    turns.push(...withLeaf.turns)
    cpuMs.leaf += withLeaf.cpuMs
  }
  const checkpoints = rig.checkpoints()
  await rig.close()
  plain.sort((a, b) => a - b)
  leaf.sort((a, b) => a - b)
  turns.sort((a, b) => a - b)
  return {
    transactions_per_variant: plain.length,
    checkpoints_during_rounds: checkpoints,
    without_tree_ms: {
      p50: ms(quantile(plain, 0.5)),
      p99: ms(quantile(plain, 0.99)),
      p999: ms(quantile(plain, 0.999)),
    },
    with_tree_ms: {
      p50: ms(quantile(leaf, 0.5)),
      p99: ms(quantile(leaf, 0.99)),
      p999: ms(quantile(leaf, 0.999)),
    },
    extra_ms: {
      p50: ms(quantile(leaf, 0.5) - quantile(plain, 0.5)),
      p99: ms(quantile(leaf, 0.99) - quantile(plain, 0.99)),
    },
    // The turns between transactions, both kinds: where the WAL checkpoint and the checkpointer
    // run.
    between_transactions_ms: {
      p99: ms(quantile(turns, 0.99)),
      p999: ms(quantile(turns, 0.999)),
      max: ms(turns.at(-1)),
    },
    // CPU per transaction, the figure a loaded machine does not distort.
    cpu_per_transaction_ms: {
      without_tree: ms(cpuMs.plain / plain.length),
      with_tree: ms(cpuMs.leaf / leaf.length),
    },
  }
}

const loadAverage = () => os.loadavg().map((l) => Math.round(l * 100) / 100)
const report = { machine: { cpus: os.cpus().length, load_before: loadAverage() } }
if (!values['verify-only']) {
  report.proofs = proofFigure()
  report.audited_write_sqlite = await auditCostFigure()
}
report.verify = await verifyFigure()
report.machine.load_after = loadAverage()
console.log(JSON.stringify(report, null, 2))

const verdict = (ok) => (ok ? 'meets the target' : 'MISSES the target')
const write = report.audited_write_sqlite
const slowestWall = Math.max(...report.verify.wall_s)
const alone = report.verify.main_thread_alone
const millionNote =
  report.verify.events === 1_000_000
    ? ''
    : ` (a smoke run: ${report.verify.events} events, not 1,000,000)`
console.log(
  [
    '',
    `Audit log figures, ${report.machine.cpus} CPUs, load ${report.machine.load_before.join(' ')} before, ${report.machine.load_after.join(' ')} after:`,
    ...(write === undefined
      ? []
      : [
          `  extra time of an audited write on SQLite, p99: ${write.extra_ms.p99} ms (p50 ${write.extra_ms.p50} ms; with the tree p99 ${write.with_tree_ms.p99} ms, without ${write.without_tree_ms.p99} ms; p99.9 ${write.with_tree_ms.p999} against ${write.without_tree_ms.p999} ms; ${write.transactions_per_variant} transactions each) — target < 2 ms: ${verdict(write.extra_ms.p99 < 2)}`,
          `  the turns between those transactions, where SQLite's WAL checkpoint runs (db/sqlite-checkpoint.ts) and so what a request arriving then waits: p99 ${write.between_transactions_ms.p99} ms, p99.9 ${write.between_transactions_ms.p999} ms, longest ${write.between_transactions_ms.max} ms`,
        ]),
    `  verify of a ${report.verify.events.toLocaleString('en')}-event export (${report.verify.file_mib} MiB), ${report.verify.worker_threads} worker threads: ${slowestWall} s wall at the slowest of ${report.verify.wall_s.length} runs (${report.verify.wall_s.join(', ')} s; CPU ${report.verify.cpu_s.join(', ')} s)${millionNote} — target < 10 s: ${millionNote === '' ? verdict(slowestWall < 10) : 'not judged'}`,
    `    on the main thread alone (--threads 0), the same minutes: ${alone.wall_s.join(', ')} s wall, CPU ${alone.cpu_s.join(', ')} s`,
    ...(report.proofs === undefined
      ? []
      : [
          `  proof size at ${report.proofs.leaves.toLocaleString('en')} leaves: inclusion ${report.proofs.longest_inclusion_proof} hashes, consistency ${report.proofs.longest_consistency_proof} hashes — target ≤ 20 (inclusion): ${verdict(report.proofs.longest_inclusion_proof <= 20)}`,
        ]),
  ].join('\n'),
)
