/**
 * The server bundle's stand-ins (scripts/bundle-stand-ins.mjs): each provides every name its
 * dependents use, as the installed package does, and loads the package only on first use.
 */
import fs from 'node:fs'
import { createRequire } from 'node:module'
import path from 'node:path'
import vm from 'node:vm'
import { describe, expect, it } from 'vitest'
import { STAND_INS, standInSource } from '../scripts/bundle-stand-ins.mjs'

const require = createRequire(import.meta.url)
const modules = path.resolve(import.meta.dirname, '../node_modules')

/** How the dependents of each replaced package reach its names. */
const USES: Record<string, RegExp> = {
  yaml: /\byaml\.(\w+)/g,
  glob: /const \{ (\w+) \} = require\('glob'\)/g,
  '@opentelemetry/api': /\bOtelApi\.(\w+)/g,
}

function load(name: string) {
  const required: string[] = []
  const exports: Record<string, unknown> = {}
  const fakeRequire = (id: string): unknown => {
    required.push(id)
    return require(id)
  }
  vm.compileFunction(standInSource(name), ['exports', 'require'])(exports, fakeRequire)
  return { exports, required }
}

describe('stand-ins of the server bundle', () => {
  it('provides every name that the dependents it lists use', () => {
    expect(Object.keys(USES).sort()).toEqual(Object.keys(STAND_INS).sort())
    for (const [name, { dependents, functions, objects }] of Object.entries(STAND_INS)) {
      const sources = dependents.map((file) => fs.readFileSync(path.join(modules, file), 'utf8'))
      const used = new Set(
        sources.flatMap((source) => [...source.matchAll(USES[name]!)].map((m) => m[1])),
      )
      const provided = [...functions, ...objects]
      expect(used.size, name).toBeGreaterThan(0)
      expect(provided.sort(), name).toEqual(expect.arrayContaining([...used]))
    }
  })

  it('names functions and objects as the installed packages have them', () => {
    for (const [name, { functions, objects }] of Object.entries(STAND_INS)) {
      const real = require(name) as Record<string, unknown>
      for (const fn of functions) expect(typeof real[fn], `${name}.${fn}`).toBe('function')
      for (const key of objects) expect(typeof real[key], `${name}.${key}`).toBe('object')
    }
  })

  it('loads the package on first use and answers as the package does', () => {
    const yaml = load('yaml')
    expect(yaml.required).toEqual([])
    const stringify = yaml.exports.stringify as (value: unknown) => string
    expect(stringify({ openapi: '3.1.0' })).toBe(
      (require('yaml') as { stringify: typeof stringify }).stringify({ openapi: '3.1.0' }),
    )
    expect((yaml.exports.parse as (text: string) => unknown)('a: 1')).toEqual({ a: 1 })
    expect(yaml.required).toEqual(['yaml'])

    const otel = load('@opentelemetry/api')
    expect(otel.required).toEqual([])
    expect(otel.exports.trace).toBe((require('@opentelemetry/api') as { trace: unknown }).trace)
    expect(otel.required).toEqual(['@opentelemetry/api'])
  })
})
