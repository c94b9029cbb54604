#!/usr/bin/env node
/**
 * The extra cost of an audited write, two builds A/B in one process (bench/audit.mjs measures one):
 *
 *   node bench/audit-ab.mjs <before-checkout> [transactions-per-round] [rounds]
 *
 * <before-checkout> is another checkout with its own `npm run build:server` done (e.g.
 * `git archive <commit> | tar -x -C /tmp/before`, node_modules linked); this checkout's dist/ is
 * "after". Each build gets its own SQLite file and its checkpointer (as the service
 * runs it), and is timed against the plain event insert on its own file — an audited write
 * without the Merkle tree — in rounds alternating over the four, so both builds see the same
 * machine load. Prints p50/p99/p99.9 and CPU per transaction of each, the p99.9 and longest of the
 * turns after them (where db/sqlite-checkpoint.ts runs the WAL checkpoint; a build without it has
 * none there), and the extra p99, p50 and CPU of each build.
 */
import path from 'node:path'
import { pathToFileURL } from 'node:url'
import { auditRig } from './audit-rig.mjs'
const [beforeRoot, perRound, rounds] = process.argv.slice(2)
if (beforeRoot === undefined)
  throw new Error(
    'usage: node bench/audit-ab.mjs <before-checkout> [transactions-per-round] [rounds]',
  )
const N = Number(perRound ?? 2000),
  ROUNDS = Number(rounds ?? 5)
const side = (root) => auditRig(pathToFileURL(path.join(root, 'dist/')), N)
const old = await side(path.resolve(beforeRoot)),
  now = await side(path.resolve(import.meta.dirname, '..'))
const V = {
  oldPlain: [old, old.plain],
  oldAudited: [old, old.audited],
  newPlain: [now, now.plain],
  newAudited: [now, now.audited],
}
for (const [x, w] of Object.values(V)) await x.time(w)
const res = Object.fromEntries(Object.keys(V).map((k) => [k, { s: [], turns: [], cpu: 0 }]))
for (let r = 0; r < ROUNDS; r++)
  for (const [k, [x, w]] of Object.entries(V)) {
    const { samples, turns, cpuMs } = await x.time(w)
    res[k].s.push(...samples)
    res[k].turns.push(...(turns ?? []))
    res[k].cpu += cpuMs
  }
const q = (s, p) => s[Math.min(s.length - 1, Math.floor(p * s.length))]
const st = Object.fromEntries(
  Object.entries(res).map(([k, { s, turns, cpu }]) => {
    s.sort((a, b) => a - b)
    turns.sort((a, b) => a - b)
    // All writes of the build (transaction, then the turn after it) for the p99.9 of what a request
    // waits.
    return [
      k,
      {
        p50: q(s, 0.5),
        p99: q(s, 0.99),
        p999: q(s, 0.999),
        turnP999: q(turns, 0.999) ?? 0,
        turnMax: turns.at(-1) ?? 0,
        cpu: cpu / s.length,
      },
    ]
  }),
)
const f = (x) => x.toFixed(3)
console.log(
  JSON.stringify({
    transactions_each: N * ROUNDS,
    ...Object.fromEntries(
      Object.entries(st).map(([k, v]) => [
        k,
        {
          p50: +f(v.p50),
          p99: +f(v.p99),
          p999: +f(v.p999),
          turn_p999: +f(v.turnP999),
          turn_max: +f(v.turnMax),
          cpu_ms: +f(v.cpu),
        },
      ]),
    ),
  }),
)
console.log(
  `extra p99: before ${f(st.oldAudited.p99 - st.oldPlain.p99)} ms (${f(st.oldPlain.p99)} → ${f(st.oldAudited.p99)}), after ${f(st.newAudited.p99 - st.newPlain.p99)} ms (${f(st.newPlain.p99)} → ${f(st.newAudited.p99)}); extra p50 before ${f(st.oldAudited.p50 - st.oldPlain.p50)}, after ${f(st.newAudited.p50 - st.newPlain.p50)}; extra CPU/txn before ${f(st.oldAudited.cpu - st.oldPlain.cpu)}, after ${f(st.newAudited.cpu - st.newPlain.cpu)} ms`,
)
console.log(`checkpoints made: before ${old.checkpoints()}, after ${now.checkpoints()}`)
await old.close()
await now.close()
