#!/usr/bin/env node
/**
 * `npm test`: the type-checks, the linters, the build and the Vitest suite, each step started as
 * soon as what it needs is done, a few side by side. On a 2-core machine the steps one after the
 * other left a core idle through every single-threaded one (tsc, ESLint, Prettier), and the
 * container image test held a Vitest worker while podman built the image
 * (docs/decisions/0042-test-run-in-parallel.md).
 *
 *   container image test (its own Vitest run: the image is built from the sources, not dist/)
 *   build:server → lint:openapi, api-types --check
 *   build:server + build:console → the rest of the suite
 *   typecheck (service, console), lint (layers, code, format, docs), licences
 *
 * A step's output is printed when it ends (the suite's as it runs); the first failure stops every
 * step and fails the run. Each step's time is printed, and the total.
 */
import { spawn, spawnSync } from 'node:child_process'
import fs from 'node:fs'
import path from 'node:path'
import { performance } from 'node:perf_hooks'

const root = path.resolve(import.meta.dirname, '..')
const bin = (name) => path.join(root, 'node_modules/.bin', name)

/** At most this many steps at a time besides the container test: more only starve each other. */
const PARALLEL = 3

const { scripts } = JSON.parse(fs.readFileSync(path.join(root, 'package.json'), 'utf8'))
/** A package.json script's command, run by the shell as npm would (node_modules/.bin on PATH). */
const npm = (name) => scripts[name]

/** name, command, what must succeed first; `live` streams the output instead of keeping it. */
const STEPS = [
  { name: 'build:server', command: npm('build:server') },
  { name: 'build:console', command: npm('build:console') },
  {
    name: 'build stamp',
    command: ['node', 'scripts/build-if-stale.mjs', '--stamp'],
    after: ['build:server', 'build:console'],
  },
  { name: 'lint:openapi', command: npm('lint:openapi'), after: ['build:server'] },
  {
    name: 'api-types --check',
    command: ['node', 'scripts/generate-api-types.mjs', '--check'],
    after: ['build:server'],
  },
  {
    name: 'vitest',
    // `npm test -- <files or options>` hands them to this run, as `vitest run` took them.
    command: [bin('vitest'), 'run', '--project', '!container', ...process.argv.slice(2)],
    after: ['build stamp'],
    live: true,
  },
  { name: 'typecheck', command: [bin('tsc'), '-p', 'tsconfig.json', '--noEmit'] },
  { name: 'typecheck:console', command: [bin('tsc'), '-p', 'web/tsconfig.json'] },
  { name: 'lint:layers', command: npm('lint:layers') },
  { name: 'lint:code', command: npm('lint:code') },
  { name: 'lint:format', command: npm('lint:format') },
  { name: 'lint:docs', command: npm('lint:docs') },
  { name: 'lint:licences', command: npm('lint:licences') },
]

/** The container image test: its own Vitest run, started first, beside everything else. */
const CONTAINER = { name: 'container', command: [bin('vitest'), 'run', '--project', 'container'] }

const started = performance.now()
const seconds = (from) => ((performance.now() - from) / 1000).toFixed(1)
const running = new Map()
const done = new Set()
let failed = false

function start(step, onEnd) {
  const began = performance.now()
  const shell = typeof step.command === 'string'
  const [command, ...args] = shell ? [step.command] : step.command
  const child = spawn(command, args, {
    cwd: root,
    shell,
    stdio: step.live ? 'inherit' : ['ignore', 'pipe', 'pipe'],
    detached: true,
    env: {
      ...process.env,
      PATH: `${path.join(root, 'node_modules/.bin')}${path.delimiter}${process.env.PATH ?? ''}`,
      FORCE_COLOR: process.stdout.isTTY ? '1' : '0',
    },
  })
  let output = ''
  child.stdout?.on('data', (chunk) => (output += chunk))
  child.stderr?.on('data', (chunk) => (output += chunk))
  running.set(step.name, child)
  child.on('close', (code, signal) => {
    running.delete(step.name)
    if (failed) return
    const ok = code === 0
    if (output.trim() !== '') process.stdout.write(`${output.trimEnd()}\n`)
    console.log(`test: ${step.name} ${ok ? 'passed' : 'FAILED'} in ${seconds(began)} s`)
    if (!ok) return fail(`${step.name} exited with ${signal ?? code}`)
    onEnd()
  })
  child.on('error', (error) => fail(`${step.name}: ${error.message}`))
}

function fail(reason) {
  if (failed) return
  failed = true
  console.error(`test: ${reason}; stopping the other steps`)
  for (const child of running.values()) {
    try {
      process.kill(-child.pid, 'SIGTERM')
    } catch {
      // already gone
    }
  }
  process.exitCode = 1
}

function finished() {
  return STEPS.every((step) => done.has(step.name)) && done.has(CONTAINER.name)
}

function schedule() {
  if (failed) return
  if (finished()) {
    console.log(`test: every step passed in ${seconds(started)} s`)
    return
  }
  for (const step of STEPS) {
    const busy = [...running.keys()].filter((name) => name !== CONTAINER.name).length
    if (busy >= PARALLEL) return
    if (done.has(step.name) || running.has(step.name)) continue
    if (!(step.after ?? []).every((name) => done.has(name))) continue
    start(step, () => {
      done.add(step.name)
      schedule()
    })
  }
}

// Without podman Vitest's configuration has no container project (it warns, or with CI=true fails).
if (spawnSync('podman', ['--version'], { stdio: 'ignore' }).status === 0)
  start(CONTAINER, () => {
    done.add(CONTAINER.name)
    schedule()
  })
else done.add(CONTAINER.name)
schedule()
