/**
 * The docs check of `npm run lint` (scripts/lint-docs.mjs): this repository passes it, the
 * OpenAPI document the application serves carries no issue number, and every kind of problem it
 * exists for is found, by file and line, in a small tree written for the purpose.
 * Engine-independent, so it runs once (on SQLite, where the served document is built).
 */
import { spawnSync } from 'node:child_process'
import fs from 'node:fs'
import os from 'node:os'
import path from 'node:path'
import { afterAll, describe, expect, it } from 'vitest'
import {
  ARCHITECTURE_MAX_BYTES,
  README_MAX_BYTES,
  findDocProblems,
  headingAnchor,
  headingAnchors,
} from '../scripts/lint-docs.mjs'
import { useTestApp } from './helpers/app.js'

const ROOT = path.resolve(import.meta.dirname, '..')
const SCRIPT = path.join(ROOT, 'scripts/lint-docs.mjs')
const t = useTestApp()

// Built from parts, so that this file does not carry what the check looks for.
const ISSUE = ['iss', 'ue 14'].join('')
const CONTRACT = ['CONTRACT', '.md'].join('')
const API = ['docs', 'API.md'].join('/')
const DECISIONS = ['docs', 'decisions'].join('/')

const API_MD = [
  '# API',
  '## Errors',
  '### Status rules',
  '## Links and go-links',
  'See [the rules](#status-rules) and [nothing](#no-such-part).',
  '',
].join('\n')

function tree(files: Record<string, string>): string {
  const root = fs.mkdtempSync(path.join(os.tmpdir(), 'switchboard-lint-docs-'))
  for (const [file, text] of Object.entries(files)) {
    fs.mkdirSync(path.dirname(path.join(root, file)), { recursive: true })
    fs.writeFileSync(path.join(root, file), text)
  }
  roots.push(root)
  return root
}
const roots: string[] = []
afterAll(() => {
  for (const root of roots) fs.rmSync(root, { recursive: true, force: true })
})

describe('the docs check', () => {
  it('passes on this repository, from the command line too', () => {
    expect(findDocProblems(ROOT)).toEqual([])
    const run = spawnSync(process.execPath, [SCRIPT], { encoding: 'utf8' })
    expect(run.stderr).toBe('')
    expect(run.status).toBe(0)
  })

  it('finds no issue number in the OpenAPI document the application serves', async () => {
    const response = await t.app.inject({ method: 'GET', url: '/api/openapi.json' })
    expect(response.statusCode).toBe(200)
    expect(findDocProblems(ROOT, { openApiText: response.body })).toEqual([])
    expect(findDocProblems(ROOT, { openApiText: `{"summary":"${ISSUE}"}` })).toEqual([
      { file: '/api/openapi.json', line: 0, problem: 'an issue number in the document' },
    ])
  })

  it('names every problem by file and line', () => {
    const root = tree({
      'docs/API.md': API_MD,
      [`${DECISIONS}/0001-kept.md`]: '# 0001. Kept\n',
      'docs/ARCHITECTURE.md': `See ../shared/ARCHITECTURE.md\n${'x'.repeat(ARCHITECTURE_MAX_BYTES)}\n`,
      'README.md': `# Switchboard\n\nFixed in ${ISSUE}.\n${'y'.repeat(README_MAX_BYTES)}\n`,
      'src/a.ts': [
        '/**',
        ` * A rule (${CONTRACT} §2.1).`,
        ` * Cites ${API}#status-rules and ${API}#errors, #missing-part.`,
        ` * Measured in ${DECISIONS}/0001-kept.md and ${DECISIONS}/0002-gone.md.`,
        ` * ${'word '.repeat(25)}`,
        ' */',
        `export const text = 'a string may be long: ${'z'.repeat(120)}'`,
        '',
      ].join('\n'),
      'web/src/b.css': `/* Links page, ${ISSUE.replace(' ', ' #')} */\n`,
      'test/c.test.ts': `it('refuses it (${ISSUE})', () => {})\n`,
      'web/src/api/schema.d.ts': `/** @description ${'long '.repeat(30)} */\n`,
    })
    const problems = findDocProblems(root).map(
      ({ file, line, problem }) => `${file}:${line} ${problem}`,
    )
    expect(problems.sort()).toEqual(
      [
        'src/a.ts:2 cites the contract file: cite docs/API.md#<section> instead',
        'src/a.ts:3 docs/API.md has no section #missing-part',
        `src/a.ts:4 ${DECISIONS}/0002-gone.md does not exist`,
        'src/a.ts:5 a comment line of 128 characters (at most 100)',
        'web/src/b.css:1 an issue number: say the rule and its reason instead',
        'test/c.test.ts:1 an issue number: say the rule and its reason instead',
        'README.md:3 an issue number: say the rule and its reason instead',
        'docs/ARCHITECTURE.md:1 links outside the repository',
        'docs/API.md:0 no section #no-such-part to link to',
        `README.md:0 ${fs.statSync(path.join(root, 'README.md')).size} bytes, more than the ${README_MAX_BYTES} allowed`,
        `docs/ARCHITECTURE.md:0 ${fs.statSync(path.join(root, 'docs/ARCHITECTURE.md')).size} bytes, more than the ${ARCHITECTURE_MAX_BYTES} allowed`,
      ].sort(),
    )
  })

  it('accepts a tree that keeps the rules', () => {
    const root = tree({
      'docs/API.md': API_MD.replace('[nothing](#no-such-part)', 'nothing else'),
      'docs/ARCHITECTURE.md': '# Architecture\n',
      'README.md': '# Switchboard\n\nAn issuer and 2 issues of style are fine.\n',
      'src/a.ts': `// Why, in the present (${API}#status-rules, #links-and-go-links).\n`,
    })
    expect(findDocProblems(root)).toEqual([])
  })

  it('makes the anchors GitHub makes of headings', () => {
    expect(headingAnchor('Links and go-links')).toBe('links-and-go-links')
    expect(headingAnchor('`/go/{slug}` and CSRF (RFC 9110 §11.6.1)')).toBe(
      'goslug-and-csrf-rfc-9110-1161',
    )
    expect([...headingAnchors('# A\n## Notes\n### Notes\n')]).toEqual(['a', 'notes', 'notes-1'])
  })
})
