#!/usr/bin/env node
/**
 * The licence check of the production dependency tree (part of `npm test`): every package that
 * `npm ci --omit=dev` installs (package-lock.json's entries not marked dev, so every platform's
 * optional binaries count too) must carry a licence that may be shipped inside an Apache-2.0
 * project. The rule is an allow-list of SPDX identifiers (https://spdx.org/licenses/), so copyleft
 * (GPL, AGPL, LGPL, SSPL, EUPL, …), "UNLICENSED", a missing field and anything unknown fail alike —
 * each listed with the path that brings it in — until someone has read it and added it here.
 * SPDX expressions are honoured: `A OR B` needs one allowed side, `A AND B` both.
 */
import fs from 'node:fs'
import path from 'node:path'
import { pathToFileURL } from 'node:url'

/**
 * Permissive licences compatible with distribution under Apache-2.0 (ASF category A, plus MIT-0 and
 * BlueOak).
 */
export const ALLOWED = new Set([
  '0BSD',
  'Apache-2.0',
  'BlueOak-1.0.0',
  'BSD-2-Clause',
  'BSD-3-Clause',
  'CC0-1.0',
  'CC-BY-3.0',
  'CC-BY-4.0',
  'ISC',
  'MIT',
  'MIT-0',
  'Python-2.0',
  'Unlicense',
  'Zlib',
])

/** Splits an SPDX expression into tokens: identifiers, parentheses, AND, OR, WITH. */
function tokens(expression) {
  return expression.replace(/[()]/g, ' $& ').trim().split(/\s+/).filter(Boolean)
}

/**
 * True when the SPDX expression is satisfiable with allowed licences. AND binds tighter than OR
 * (SPDX spec, annex D); an exception (`WITH …`) makes the licence unknown here, so it fails.
 */
export function isAllowed(expression) {
  if (typeof expression !== 'string' || expression.trim() === '') return false
  const list = tokens(expression)
  let at = 0
  const orExpression = () => {
    let value = andExpression()
    while (list[at] === 'OR') {
      at++
      const right = andExpression()
      value = value || right
    }
    return value
  }
  const andExpression = () => {
    let value = term()
    while (list[at] === 'AND') {
      at++
      const right = term()
      value = value && right
    }
    return value
  }
  const term = () => {
    const token = list[at++]
    if (token === '(') {
      const value = orExpression()
      if (list[at++] !== ')') throw new Error('unbalanced')
      return value
    }
    if (list[at] === 'WITH') {
      at += 2
      return false
    }
    return token !== undefined && ALLOWED.has(token.replace(/\+$/, ''))
  }
  try {
    const value = orExpression()
    return at === list.length && value
  } catch {
    return false
  }
}

/** The licence field as npm writes it: a string, or the deprecated { type } / [{ type }] forms. */
function licenceOf(entry) {
  const value = entry.license ?? entry.licenses
  if (typeof value === 'string') return value
  if (Array.isArray(value))
    return value.map((item) => `(${item.type ?? item})`).join(' OR ') || undefined
  if (value && typeof value === 'object') return value.type
  return undefined
}

/** The production packages of a package-lock.json (v2/v3) whose licence is not allowed. */
export function findProblems(lock, root) {
  const problems = []
  for (const [location, entry] of Object.entries(lock.packages ?? {})) {
    if (location === '' || entry.dev === true || entry.link === true) continue
    let licence = licenceOf(entry)
    // Older lockfiles lack the field: the installed package.json says it.
    if (licence === undefined && root !== undefined) {
      const manifest = path.join(root, location, 'package.json')
      if (fs.existsSync(manifest))
        licence = licenceOf(JSON.parse(fs.readFileSync(manifest, 'utf8')))
    }
    if (!isAllowed(licence))
      problems.push({
        location,
        name: location.replace(/^.*node_modules\//, ''),
        version: entry.version,
        licence: licence ?? '(none)',
      })
  }
  return problems
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? '').href) {
  const root = path.resolve(import.meta.dirname, '..')
  const lock = JSON.parse(fs.readFileSync(path.join(root, 'package-lock.json'), 'utf8'))
  const problems = findProblems(lock, root)
  const count = Object.entries(lock.packages).filter(
    ([location, entry]) => location !== '' && !entry.dev && !entry.link,
  ).length
  if (problems.length > 0) {
    process.stderr.write(
      `licence check: ${problems.length} production dependenc${problems.length === 1 ? 'y has a licence' : 'ies have licences'} not allowed in an Apache-2.0 project:\n`,
    )
    for (const p of problems)
      process.stderr.write(`  ${p.name}@${p.version}: ${p.licence} (${p.location})\n`)
    process.stderr.write(
      'Replace the dependency, or, after reading its licence, add the SPDX identifier to ALLOWED in scripts/check-licences.mjs.\n',
    )
    process.exit(1)
  }
  process.stdout.write(
    `licence check: ${count} production packages, all under licences compatible with Apache-2.0\n`,
  )
}
