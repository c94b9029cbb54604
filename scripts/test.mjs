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
 * The suite is the longest path, and the builds before it: they run at the normal priority, every
 * other step at a lower one (`nice`), so that the type-checks, the linters and the container test
 * take the CPU the suite leaves idle (its browser tests spend much of their time waiting on
 * Chromium and the server) instead of slowing it. The server's build here emits without
 * type-checking (`tsc --noCheck`, the same JavaScript): the `typecheck` step checks the same
 * sources with the same options, and the suite no longer waits for that check.
 *
 * A step's output is printed when it ends (the suite's as it runs); the first failure stops every
 * step and fails the run. Each step's time is printed, and the total.
 */
import { spawn, spawnSync } from 'node:child_process'
import fs from 'node:fs'
import os from 'node:os'
import path from 'node:path'
import { performance } from 'node:perf_hooks'

const root = path.resolve(import.meta.dirname, '..')
const bin = (name) => path.join(root, 'node_modules/.bin', name)

/**
 * At most this many steps off the longest path at a time, besides the container test: more only
 * starve each other. The builds and the suite start as soon as they may.
 */
const PARALLEL = 2

const { scripts } = JSON.parse(fs.readFileSync(path.join(root, 'package.json'), 'utf8'))
/** A package.json script's command, run by the shell as npm would (node_modules/.bin on PATH). */
const npm = (name) => scripts[name]

/** The priority (nice value) of the steps off the longest path; the builds and the suite keep 0. */
const BESIDE = 10

/**
 * `npm run build:server` with tsc's emit only: tsconfig.build.json's files are a part of
 * tsconfig.json's, which the `typecheck` step checks.
 */
const BUILD_SERVER = npm('build:server').replace(
  'tsc -p tsconfig.build.json',
  'tsc -p tsconfig.build.json --noCheck',
)
if (!BUILD_SERVER.includes('--noCheck'))
  throw new Error(
    `scripts/test.mjs: build:server no longer starts with tsc: ${npm('build:server')}`,
  )

/**
 * name, command, what must succeed first; `live` streams the output instead of keeping it;
 * `first` marks the longest path (the builds and the suite), which keeps the normal priority.
 */
const STEPS = [
  { name: 'build:server', command: BUILD_SERVER, first: true },
  { name: 'build:console', command: npm('build:console'), first: true },
  {
    name: 'build stamp',
    command: ['node', 'scripts/build-if-stale.mjs', '--stamp'],
    after: ['build:server', 'build:console'],
    first: true,
  },
  { name: 'lint:openapi', command: npm('lint:openapi'), after: ['build:server'] },
  {
    name: 'api-types --check',
    command: ['node', 'scripts/generate-api-types.mjs', '--check'],
    after: ['build:server'],
  },
  {
    name: 'vitest',
    // `npm test -- <files or options>` hands them to this run, as `vitest run` took them. Beside
    // the default reporter, a table of the slowest files ends the output.
    command: [
      bin('vitest'),
      'run',
      '--project',
      '!container',
      '--reporter=default',
      '--reporter=./test/helpers/slowest-files.ts',
      ...process.argv.slice(2),
    ],
    after: ['build stamp'],
    live: true,
    first: true,
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
  if (!step.first && child.pid !== undefined) {
    try {
      // Children started from here on inherit it (tsc, ESLint, podman and its containers).
      os.setPriority(child.pid, BESIDE)
    } catch {
      // a platform without priorities: the step runs at the normal one
    }
  }
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
    const beside = STEPS.filter((other) => !other.first && running.has(other.name)).length
    if (!step.first && beside >= PARALLEL) continue
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
