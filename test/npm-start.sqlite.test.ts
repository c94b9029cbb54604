/**
 * `npm start` builds only when the build is missing or older than its sources
 * (scripts/build-if-stale.mjs): the staleness rule on a scratch tree, and `npm start` on
 * this checkout — built by `npm test` just before — listening without rebuilding, with its time
 * printed for CI.
 */
import { spawn } from 'node:child_process'
import fs from 'node:fs'
import path from 'node:path'
import { afterAll, describe, expect, it } from 'vitest'
import { STAMP, staleReason, writeStamp } from '../scripts/build-if-stale.mjs'
import { makeTempDir } from './helpers/database.js'

const ROOT = path.resolve(import.meta.dirname, '..')
const groups: number[] = []
afterAll(() => {
  for (const pid of groups) {
    try {
      process.kill(-pid, 'SIGKILL')
    } catch {
      // Already gone.
    }
  }
})

/** Sets a file's modification time `seconds` from now. */
function touch(file: string, seconds: number): void {
  const time = new Date(Date.now() + seconds * 1000)
  fs.utimesSync(file, time, time)
}

describe('the build is stale when', () => {
  it('there is no complete build, or a source (not a test) is newer than the stamp', () => {
    const root = makeTempDir()
    fs.mkdirSync(path.join(root, 'src/modules'), { recursive: true })
    fs.mkdirSync(path.join(root, 'dist'))
    fs.writeFileSync(path.join(root, 'src/modules/a.ts'), '')
    fs.writeFileSync(path.join(root, 'src/modules/a.test.ts'), '')
    fs.writeFileSync(path.join(root, 'package.json'), '{}')
    for (const file of ['src/modules/a.ts', 'src/modules/a.test.ts', 'package.json'])
      touch(path.join(root, file), -60)
    expect(staleReason(root)).toBe('no complete build yet')

    writeStamp(root)
    expect(staleReason(root)).toBeNull()
    touch(path.join(root, 'src/modules/a.test.ts'), 60)
    expect(staleReason(root)).toBeNull()
    touch(path.join(root, 'src/modules/a.ts'), 60)
    expect(staleReason(root)).toBe(
      `${path.join('src', 'modules', 'a.ts')} changed since the last build`,
    )
    writeStamp(root)
    touch(path.join(root, STAMP), 120)
    touch(path.join(root, 'package.json'), 180)
    expect(staleReason(root)).toBe('package.json changed since the last build')
  })
})

describe('npm start on an unchanged checkout', () => {
  it('does not rebuild, and listens', async () => {
    // npm test has just built: a stale build here means the checkout changed after it.
    expect(staleReason(ROOT), 'run "npm run build" first (npm test does)').toBeNull()
    const stamp = fs.statSync(path.join(ROOT, STAMP)).mtimeMs
    const bundle = fs.statSync(path.join(ROOT, 'dist/start.js')).mtimeMs

    const started = performance.now()
    const child = spawn('npm', ['start', '--silent'], {
      cwd: ROOT,
      env: {
        PATH: process.env.PATH ?? '',
        HOME: process.env.HOME ?? '',
        PORT: '0',
        HOST: '127.0.0.1',
        DATA_DIR: makeTempDir(),
      },
      stdio: ['ignore', 'pipe', 'pipe'],
      // Its own process group, so npm, the shell and the server stop together.
      detached: true,
    })
    groups.push(child.pid!)
    let output = ''
    const listening = await new Promise<number>((resolve, reject) => {
      const timer = setTimeout(
        () => reject(new Error(`npm start did not listen:\n${output}`)),
        30_000,
      )
      const read = (chunk: Buffer) => {
        output += chunk.toString()
        if (/Server listening at http:\/\/127\.0\.0\.1:\d+/.test(output)) {
          clearTimeout(timer)
          resolve(performance.now() - started)
        }
      }
      child.stdout.on('data', read)
      child.stderr.on('data', read)
      child.once('exit', () => reject(new Error(`npm start exited:\n${output}`)))
    })
    const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()))
    process.kill(-child.pid!, 'SIGTERM')
    await exited

    expect(output).not.toContain('switchboard: building')
    expect(fs.statSync(path.join(ROOT, STAMP)).mtimeMs).toBe(stamp)
    expect(fs.statSync(path.join(ROOT, 'dist/start.js')).mtimeMs).toBe(bundle)
    console.log(
      `ci: npm start on an unchanged checkout listened after ${Math.round(listening)} ms (no rebuild)`,
    )
  })
})

describe('npm run cli on an unchanged checkout', () => {
  it('does not rebuild, and prints only the command’s own output on stdout', async () => {
    expect(staleReason(ROOT), 'run "npm run build" first (npm test does)').toBeNull()
    const stamp = fs.statSync(path.join(ROOT, STAMP)).mtimeMs
    const child = spawn('npm', ['run', '--silent', 'cli', '--', 'setup-code'], {
      cwd: ROOT,
      env: { PATH: process.env.PATH ?? '', HOME: process.env.HOME ?? '', DATA_DIR: makeTempDir() },
      stdio: ['ignore', 'pipe', 'pipe'],
      detached: true,
    })
    groups.push(child.pid!)
    let stdout = ''
    let stderr = ''
    child.stdout.on('data', (chunk: Buffer) => (stdout += chunk.toString()))
    child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()))
    const code = await new Promise<number | null>((resolve) => child.once('exit', resolve))

    expect(code, stderr).toBe(0)
    expect(stderr).not.toContain('switchboard: building')
    // A fresh data directory has no user yet: the setup code is the whole of stdout.
    expect(stdout.trim()).toMatch(/^\S+$/)
    expect(fs.statSync(path.join(ROOT, STAMP)).mtimeMs).toBe(stamp)
  })
})
