/**
 * The licence check of the production dependency tree (scripts/check-licences.mjs, run by
 * `npm test`): permissive licences pass, copyleft and unknown ones fail and are named, dev-only
 * packages are not its business, and SPDX expressions are read as the standard says.
 */
import { spawnSync } from 'node:child_process'
import fs from 'node:fs'
import os from 'node:os'
import path from 'node:path'
import { describe, expect, it } from 'vitest'
import { findProblems, isAllowed } from '../scripts/check-licences.mjs'

const SCRIPT = path.resolve(import.meta.dirname, '../scripts/check-licences.mjs')

describe('licence check', () => {
  it('reads SPDX expressions: OR needs one allowed side, AND both, AND binds tighter', () => {
    expect(isAllowed('MIT')).toBe(true)
    expect(isAllowed('(MIT OR GPL-3.0-only)')).toBe(true)
    expect(isAllowed('MIT AND GPL-3.0-only')).toBe(false)
    expect(isAllowed('GPL-2.0-only OR MIT AND ISC')).toBe(true)
    expect(isAllowed('(GPL-2.0-only OR MIT) AND SSPL-1.0')).toBe(false)
    expect(isAllowed('GPL-2.0-only WITH Classpath-exception-2.0')).toBe(false)
    expect(isAllowed('AGPL-3.0-or-later')).toBe(false)
    expect(isAllowed('UNLICENSED')).toBe(false)
    expect(isAllowed('')).toBe(false)
    expect(isAllowed(undefined)).toBe(false)
    expect(isAllowed('(MIT')).toBe(false)
  })

  it('lists every production package whose licence is not allowed, and ignores dev-only ones', () => {
    const lock = {
      packages: {
        '': { name: 'switchboard', license: 'Apache-2.0' },
        'node_modules/fine': { version: '1.0.0', license: 'MIT' },
        'node_modules/copyleft': { version: '2.1.0', license: 'GPL-3.0-only' },
        'node_modules/fine/node_modules/nested': { version: '0.1.0', license: 'SSPL-1.0' },
        'node_modules/unnamed': { version: '3.0.0' },
        'node_modules/tooling': { version: '1.0.0', license: 'AGPL-3.0-only', dev: true },
        'node_modules/old-style': {
          version: '1.0.0',
          licenses: [{ type: 'MIT' }, { type: 'Apache-2.0' }],
        },
      },
    }
    expect(findProblems(lock)).toEqual([
      {
        location: 'node_modules/copyleft',
        name: 'copyleft',
        version: '2.1.0',
        licence: 'GPL-3.0-only',
      },
      {
        location: 'node_modules/fine/node_modules/nested',
        name: 'nested',
        version: '0.1.0',
        licence: 'SSPL-1.0',
      },
      { location: 'node_modules/unnamed', name: 'unnamed', version: '3.0.0', licence: '(none)' },
    ])
  })

  it("passes on this project's own production tree", () => {
    const result = spawnSync(process.execPath, [SCRIPT], { encoding: 'utf8' })
    expect(result.stderr).toBe('')
    expect(result.status).toBe(0)
    expect(result.stdout).toMatch(
      /^licence check: \d+ production packages, all under licences compatible with Apache-2\.0\n$/,
    )
  })

  it('fails on a tree with a GPL runtime dependency, naming it', () => {
    const root = fs.mkdtempSync(path.join(os.tmpdir(), 'switchboard-licences-'))
    try {
      fs.mkdirSync(path.join(root, 'scripts'))
      fs.copyFileSync(SCRIPT, path.join(root, 'scripts/check-licences.mjs'))
      const lock = {
        lockfileVersion: 3,
        packages: {
          '': {},
          'node_modules/gpl-thing': { version: '1.2.3', license: 'GPL-2.0-or-later' },
        },
      }
      fs.writeFileSync(path.join(root, 'package-lock.json'), JSON.stringify(lock))
      const result = spawnSync(process.execPath, [path.join(root, 'scripts/check-licences.mjs')], {
        encoding: 'utf8',
      })
      expect(result.status).toBe(1)
      expect(result.stderr).toContain('gpl-thing@1.2.3: GPL-2.0-or-later (node_modules/gpl-thing)')
    } finally {
      fs.rmSync(root, { recursive: true, force: true })
    }
  })
})
