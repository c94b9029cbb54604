/**
 * A random audit log for the tamper tests: events with every optional column sometimes empty, the
 * same on every run (a fixed seed); the log written with its checkpoints, its verifiable export as
 * an administrator downloads it, and `verify` of an export's bytes.
 */
import fs from 'node:fs'
import path from 'node:path'
import { expect } from 'vitest'
import { makeCheckpoint } from '../../src/modules/audit/checkpoints.js'
import { verifyExportFile } from '../../src/modules/audit/export-verifier.js'
import { insertAuditEvents, type AuditEvent } from '../../src/modules/audit/repo.js'
import type { TestContext } from './app.js'
import { bearer, createSignedInUser } from './factories.js'
import { seededRandom } from './seeded-random.js'

/** A small seeded generator, so the log is random but the same on every run. */
function generator(seed: number) {
  const next = seededRandom(seed)
  const pick = <T>(items: readonly T[]) => items[Math.floor(next() * items.length)]!
  const word = () =>
    Array.from({ length: 3 + Math.floor(next() * 10) }, () =>
      pick('abcdefghijklmnopqrstuvwxyzäéß0123456789 -_'.split('')),
    ).join('')
  return { next, pick, word }
}

export function randomEvents(count: number): AuditEvent[] {
  const g = generator(30)
  const start = Date.UTC(2024, 0, 1)
  return Array.from({ length: count }, (_, i) => {
    const actor = g.next() < 0.1 ? null : `user-${Math.floor(g.next() * 300)}`
    return {
      at: new Date(start + i * 1000 + Math.floor(g.next() * 999)).toISOString(),
      actorId: actor,
      actorEmail: actor === null ? null : `${actor}@example.com`,
      action: g.pick([
        'auth.login',
        'org.create',
        'link.update',
        'admin.user_update',
        'settings.update',
      ]),
      targetType: g.pick(['user', 'organization', 'link', null]),
      targetId: g.next() < 0.2 ? null : g.word(),
      ip: g.next() < 0.3 ? null : `198.51.100.${Math.floor(g.next() * 255)}`,
      userAgent: g.next() < 0.5 ? null : `Browser/${g.word()}`,
      subjectUserId: actor,
      metadata:
        g.next() < 0.2
          ? {}
          : {
              n: Math.floor(g.next() * 1e6),
              name: g.word(),
              nested: { ok: g.next() < 0.5, tags: [g.word(), g.word()] },
            },
    }
  })
}

/**
 * Writes `count` random events in parts of 1,000 with a checkpoint after each, and one more at the
 * end: the log's signed history. Answers the tree's size and the key its notes verify with.
 */
export async function writeSignedLog(
  t: TestContext,
  count: number,
): Promise<{ size: number; key: string }> {
  const events = randomEvents(count)
  for (let i = 0; i < count; i += 1000) {
    await insertAuditEvents(t.deps.db, events.slice(i, i + 1000))
    await makeCheckpoint(t.deps)
  }
  const size = (await makeCheckpoint(t.deps))!.treeSize
  return { size, key: t.deps.auditSigner.verifierKey }
}

/** The verifiable export as a new administrator downloads it, and its lines (each with its \n). */
export async function downloadVerifiableExport(
  t: TestContext,
): Promise<{ original: Buffer; lines: Buffer[] }> {
  const admin = await createSignedInUser(t, { isAdmin: true })
  const response = await t.app.inject({
    method: 'GET',
    url: '/api/admin/audit-log/export?format=verifiable',
    headers: bearer(admin.token),
  })
  expect(response.statusCode).toBe(200)
  const original = response.rawPayload
  const lines: Buffer[] = []
  for (let start = 0; start < original.length;) {
    const end = original.indexOf(0x0a, start)
    lines.push(original.subarray(start, end + 1))
    start = end + 1
  }
  return { original, lines }
}

/** `verify` in this thread of `content`, written as `export.jsonl` in `dir`. */
export function verifyExportBytes(dir: string, content: Buffer, key: string) {
  const file = path.join(dir, 'export.jsonl')
  fs.writeFileSync(file, content)
  return verifyExportFile(file, { verifierKey: key, threads: 0 })
}
