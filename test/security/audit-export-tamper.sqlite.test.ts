/**
 * Property: in the verifiable export of a random log of 10,000 events, every single change — a
 * one-byte edit, a deletion, an insertion or a swap of lines, a truncation — is found by `verify`,
 * and its worker threads find the same first problem as one thread. Mutations are sampled by
 * fast-check with a fixed count and seed.
 *
 * `verify` reads the file alone, never a database: these checks run once, on SQLite, which only
 * writes the log and its export. audit-tamper.test.ts checks the log in the database, and that the
 * export of each engine verifies.
 */
import fs from 'node:fs'
import path from 'node:path'
import fc from 'fast-check'
import { beforeAll, describe, expect, it } from 'vitest'
import { makeCheckpoint } from '../../src/modules/audit/checkpoints.js'
import { verifyExportFile } from '../../src/modules/audit/export-verifier.js'
import { insertAuditEvents } from '../../src/modules/audit/repo.js'
import { useTestApp } from '../helpers/app.js'
import { randomEvents } from '../helpers/audit-events.js'
import { makeTempDir } from '../helpers/database.js'
import { bearer, createSignedInUser } from '../helpers/factories.js'

const t = useTestApp({ env: { RATE_LIMIT_GENERAL: '0' } })
const EVENTS = 10_000
const LONG = 600_000

let key = ''

beforeAll(async () => {
  const events = randomEvents(EVENTS)
  // Written in ten parts with a checkpoint after each: the log's signed history.
  for (let i = 0; i < EVENTS; i += 1000) {
    await insertAuditEvents(t.deps.db, events.slice(i, i + 1000))
    await makeCheckpoint(t.deps)
  }
  await makeCheckpoint(t.deps)
  key = t.deps.auditSigner.verifierKey
}, LONG)

describe('`verify` finds every change made to an export file', () => {
  let original: Buffer
  let lines: Buffer[]
  const dir = makeTempDir()

  beforeAll(async () => {
    const admin = await createSignedInUser(t, { isAdmin: true })
    const response = await t.app.inject({
      method: 'GET',
      url: '/api/admin/audit-log/export?format=verifiable',
      headers: bearer(admin.token),
    })
    expect(response.statusCode).toBe(200)
    original = response.rawPayload
    lines = []
    for (let start = 0; start < original.length;) {
      const end = original.indexOf(0x0a, start)
      lines.push(original.subarray(start, end + 1))
      start = end + 1
    }
    // Every change below must be found in a file that verifies as it came.
    expect(lines.length).toBeGreaterThan(EVENTS)
    expect(await verify(original)).toMatchObject({ ok: true, subset: false })
  }, LONG)

  const verify = async (content: Buffer) => {
    const file = path.join(dir, 'export.jsonl')
    fs.writeFileSync(file, content)
    return verifyExportFile(file, { verifierKey: key, threads: 0 })
  }
  /**
   * The export with line x deleted, line y inserted before line x, lines x and y swapped, or cut
   * after byte x.
   */
  const changedLines = (
    kind: 'delete' | 'insert' | 'swap' | 'truncate',
    x: number,
    y: number,
  ): Buffer => {
    const i = x % lines.length
    const j = y % lines.length
    if (kind === 'delete') return Buffer.concat(lines.filter((_, k) => k !== i))
    if (kind === 'insert')
      return Buffer.concat([...lines.slice(0, i), lines[j]!, ...lines.slice(i)])
    if (kind === 'swap') {
      const swapped = [...lines]
      ;[swapped[i], swapped[j]] = [swapped[j]!, swapped[i]!]
      return Buffer.concat(swapped)
    }
    // At least the final newline goes: an export ends with one.
    return original.subarray(0, x % original.length)
  }
  const detected = async (content: Buffer) => {
    const result = await verify(content)
    expect(result.ok, 'the change went unnoticed').toBe(false)
    return result.problem!
  }

  it(
    'a one-byte edit anywhere in the file',
    async () => {
      await fc.assert(
        fc.asyncProperty(
          fc.nat({ max: 2 ** 31 - 1 }),
          fc.integer({ min: 0, max: 255 }),
          async (position, value) => {
            const p = position % original.length
            fc.pre(original[p] !== value)
            const edited = Buffer.from(original)
            edited[p] = value
            await detected(edited)
          },
        ),
        { numRuns: 60, seed: 311 },
      )
    },
    LONG,
  )

  it(
    'a deletion, an insertion or a swap of lines, and a truncation',
    async () => {
      await fc.assert(
        fc.asyncProperty(
          fc.constantFrom('delete', 'insert', 'swap', 'truncate'),
          fc.nat({ max: 2 ** 31 - 1 }),
          fc.nat({ max: 2 ** 31 - 1 }),
          async (kind, x, y) => {
            fc.pre(kind !== 'swap' || x % lines.length !== y % lines.length)
            await detected(changedLines(kind, x, y))
          },
        ),
        { numRuns: 40, seed: 312 },
      )
    },
    LONG,
  )

  it(
    'worker threads find the same first problem as this thread alone',
    async () => {
      // The file is cut into chunks of 1 MiB and handed to two workers in turn: changes anywhere in
      // it, the chunks' edges included, give the same answer as the check in this thread.
      const file = path.join(dir, 'threads.jsonl')
      await fc.assert(
        fc.asyncProperty(
          fc.constantFrom('edit', 'delete', 'swap', 'truncate'),
          fc.nat({ max: 2 ** 31 - 1 }),
          fc.nat({ max: 2 ** 31 - 1 }),
          async (kind, x, y) => {
            let changed: Buffer
            if (kind === 'edit') {
              changed = Buffer.from(original)
              const p = x % original.length
              changed[p] = original[p]! ^ (1 << (y % 8))
            } else changed = changedLines(kind, x, y)
            fs.writeFileSync(file, changed)
            const alone = await verifyExportFile(file, { verifierKey: key, threads: 0 })
            expect(await verifyExportFile(file, { verifierKey: key, threads: 2 })).toEqual(alone)
          },
        ),
        { numRuns: 16, seed: 313, examples: [['edit', 1 << 20, 0]] },
      )
      fs.writeFileSync(file, original)
      expect(original.length, 'the export spans several chunks').toBeGreaterThan(3 << 20)
      expect(await verifyExportFile(file, { verifierKey: key, threads: 2 })).toMatchObject({
        ok: true,
        entries: lines.length - 1,
      })
    },
    LONG,
  )
})
