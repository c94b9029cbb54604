/**
 * The report of `npm run lint:layers` (scripts/lint-layers.mjs): module climbs and pairs of modules
 * importing each other, counted as the config defines them, and the lint failing when a limit is
 * exceeded, when a climb is not on the allow-list, or when the allow-list names a climb that is
 * gone. Also that the declared order of modules (.dependency-cruiser.cjs) covers src/modules/.
 */
import fs from 'node:fs'
import { createRequire } from 'node:module'
import path from 'node:path'
import { describe, expect, it } from 'vitest'
import {
  formatReport,
  layerReport,
  moduleImports,
  type ModuleLayers,
} from '../scripts/lint-layers.mjs'

const root = path.resolve(import.meta.dirname, '..')
const configured = (
  createRequire(import.meta.url)('../.dependency-cruiser.cjs') as {
    moduleLayers: ModuleLayers
  }
).moduleLayers

const file = (source: string, ...imports: string[]) => ({
  source,
  dependencies: imports.map((resolved) => ({ resolved })),
})

const layers = (overrides: Partial<ModuleLayers> = {}): ModuleLayers => ({
  order: ['mail', 'users', 'auth', 'links'],
  allowedClimbs: {},
  limits: { climbs: 20, mutualPairs: 10 },
  ...overrides,
})

describe('module graph', () => {
  it('has a pair per importing module and imported module, from non-test source files only', () => {
    const imports = moduleImports([
      file('src/modules/auth/service.ts', 'src/modules/users/repo.ts', 'src/identity/caller.ts'),
      file('src/modules/auth/routes.ts', 'src/modules/users/schemas.ts', 'src/modules/auth/x.ts'),
      file('src/modules/users/service.ts', 'src/modules/auth/repo.ts'),
      file('src/modules/links/routes.test.ts', 'src/modules/auth/service.ts'),
      file('src/app.ts', 'src/modules/links/routes.ts'),
      file('src/modules/links/bookmarks/service.ts', 'src/modules/users/repo.ts'),
    ])
    expect([...imports].sort()).toEqual(['auth > users', 'links > users', 'users > auth'])
  })
})

describe('layer report', () => {
  it('counts a climb per pair whose target is not below, and each mutual pair once', () => {
    const imports = new Set(['auth > users', 'users > auth', 'links > auth', 'mail > links'])
    const report = layerReport(
      imports,
      layers({ allowedClimbs: { 'users > auth': 'reason', 'mail > links': 'reason' } }),
    )
    expect(report).toEqual({
      climbs: ['mail > links', 'users > auth'],
      mutualPairs: ['auth-users'],
      problems: [],
    })
    expect(formatReport(report, layers().limits)).toBe(
      'module climbs: 2 (limit 20): mail > links, users > auth\n' +
        'pairs of modules importing each other: 1 (limit 10): auth-users\n',
    )
  })

  it('fails on a climb missing from the allow-list and on an entry that no longer climbs', () => {
    const report = layerReport(
      new Set(['users > auth']),
      layers({ allowedClimbs: { 'mail > users': 'it used to' } }),
    )
    expect(report.problems).toEqual([
      'climb users > auth is not in ALLOWED_CLIMBS',
      'ALLOWED_CLIMBS lists mail > users, which no longer climbs: remove the entry',
    ])
  })

  it('fails when the climbs or the mutual pairs exceed their limits', () => {
    const imports = new Set(['mail > users', 'users > mail', 'mail > auth', 'auth > mail'])
    const allowedClimbs = { 'mail > users': 'r', 'mail > auth': 'r' }
    const within = layerReport(
      imports,
      layers({ allowedClimbs, limits: { climbs: 2, mutualPairs: 2 } }),
    )
    expect(within.problems).toEqual([])
    const over = layerReport(
      imports,
      layers({ allowedClimbs, limits: { climbs: 1, mutualPairs: 1 } }),
    )
    expect(over.problems).toEqual([
      '2 module climbs, more than 1',
      '2 pairs importing each other, more than 1',
    ])
    expect(formatReport(over, { climbs: 1, mutualPairs: 1 })).toContain(
      'error 2 module climbs, more than 1\n',
    )
  })
})

describe('the declared layers', () => {
  it('order every folder of src/modules/ exactly once', () => {
    const folders = fs
      .readdirSync(path.join(root, 'src/modules'), { withFileTypes: true })
      .filter((entry) => entry.isDirectory())
      .map((entry) => entry.name)
    expect([...configured.order].sort()).toEqual(folders.sort())
    expect(new Set(configured.order).size).toBe(configured.order.length)
  })

  it('allow only climbs between ordered modules, each with a reason, within the limits', () => {
    const entries = Object.entries(configured.allowedClimbs)
    expect(entries.length).toBeLessThanOrEqual(configured.limits.climbs)
    expect(configured.limits).toEqual({ climbs: 20, mutualPairs: 10 })
    for (const [climb, reason] of entries) {
      const [from = '', to = ''] = climb.split(' > ')
      expect(configured.order.indexOf(to), climb).toBeGreaterThan(configured.order.indexOf(from))
      expect(configured.order.indexOf(from), climb).toBeGreaterThanOrEqual(0)
      expect(reason.length, climb).toBeGreaterThan(20)
    }
  })
})
