/**
 * Bench-only, preloaded into a server (`NODE_OPTIONS=--import=<this file>`, AUDIT_HOLD_OUT=<file>):
 * where an audited write's hold of the tree head goes on PostgreSQL. It wraps pg's Client#query
 * and follows each connection's statements; for every transaction that locks `audit_tree_head`
 * it records, from the moment the lock's answer arrives to the moment the COMMIT's does (for an
 * append in one statement, which takes the lock itself: from its answer), each
 * statement's round trip (sent → answered) and each gap (answered → next sent: the Node process's
 * own turns between them). On SIGTERM it writes the summary (µs, p50/p99 per segment) to the file.
 * A grouped transaction's COMMIT travels with its flush (docs/decisions/0073): its `commit` step
 * includes the flush, although the head's lock is released before it.
 */
import fs from 'node:fs'
import { createRequire } from 'node:module'
import path from 'node:path'

const require = createRequire(path.join(process.cwd(), 'package.json'))
const pg = require('pg')
const out = process.env.AUDIT_HOLD_OUT
const holds = []
const state = new WeakMap()

const kind = (text) => {
  const t = text.trimStart().toLowerCase()
  if (t.startsWith('begin')) return 'begin'
  if (t.startsWith('commit')) return 'commit'
  if (t.startsWith('rollback')) return 'rollback'
  if (t.includes('audit_tree_head') && t.includes('for update')) return 'lock'
  // The append in one statement takes the head's lock itself (tree.repo.ts appendEventsPostgres).
  if (t.startsWith('with "appended_head"')) return 'lock'
  if (t.startsWith('with "written_events"')) return 'append'
  return t.slice(0, 40).split(' ').slice(0, 3).join(' ')
}

const original = pg.Client.prototype.query
pg.Client.prototype.query = function query(config, values, callback) {
  const text = typeof config === 'string' ? config : (config?.text ?? '')
  const k = kind(text)
  const sent = performance.now()
  let s = state.get(this)
  if (k === 'begin' || s === undefined) state.set(this, (s = { locked: null, steps: [] }))
  if (s.locked !== null) s.steps.push({ what: `gap before ${k}`, us: (sent - s.last) * 1000 })
  const finish = () => {
    const done = performance.now()
    if (k === 'lock') {
      s.locked = done
      s.lockWaitUs = (done - sent) * 1000
    } else if (s.locked !== null) s.steps.push({ what: k, us: (done - sent) * 1000 })
    s.last = done
    if ((k === 'commit' || k === 'rollback') && s.locked !== null) {
      holds.push({ total: (done - s.locked) * 1000, lockWait: s.lockWaitUs, steps: s.steps })
      state.set(this, { locked: null, steps: [] })
    }
  }
  const result = original.call(this, config, values, callback)
  if (result && typeof result.then === 'function') result.then(finish, finish)
  return result
}

const q = (sorted, p) => sorted[Math.min(sorted.length - 1, Math.floor(p * sorted.length))] ?? 0
const stat = (xs) => {
  const s = [...xs].sort((a, b) => a - b)
  const mean = s.reduce((a, b) => a + b, 0) / (s.length || 1)
  return {
    n: s.length,
    mean: Math.round(mean),
    p50: Math.round(q(s, 0.5)),
    p99: Math.round(q(s, 0.99)),
  }
}

process.on('SIGTERM', () => {
  if (out !== undefined) {
    const bySegment = new Map()
    for (const h of holds)
      for (const step of h.steps)
        bySegment.set(step.what, [...(bySegment.get(step.what) ?? []), step.us])
    const summary = {
      holds: stat(holds.map((h) => h.total)),
      lock_wait: stat(holds.map((h) => h.lockWait)),
      segments: Object.fromEntries([...bySegment].map(([what, xs]) => [what, stat(xs)])),
    }
    fs.writeFileSync(out, `${JSON.stringify(summary, null, 2)}\n`)
  }
  process.exit(0)
})
