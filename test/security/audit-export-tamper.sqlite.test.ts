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
import { verifyExportFile } from '../../src/modules/audit/export-verifier.js'
import { useTestApp } from '../helpers/app.js'
import {
  downloadVerifiableExport,
  verifyExportBytes,
  writeSignedLog,
} from '../helpers/audit-events.js'
import { makeTempDir } from '../helpers/database.js'

const t = useTestApp({ env: { RATE_LIMIT_GENERAL: '0' } })
const EVENTS = 10_000
const LONG = 600_000

let key = ''

beforeAll(async () => {
  ;({ key } = await writeSignedLog(t, EVENTS))
}, LONG)

describe('`verify` finds every change made to an export file', () => {
  let original: Buffer
  let lines: Buffer[]
  const dir = makeTempDir()

  beforeAll(async () => {
    ;({ original, lines } = await downloadVerifiableExport(t))
    // Every change below must be found in a file that verifies as it came.
    expect(lines.length).toBeGreaterThan(EVENTS)
    expect(await verify(original)).toMatchObject({ ok: true, subset: false })
  }, LONG)

  const verify = (content: Buffer) => verifyExportBytes(dir, content, key)
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
