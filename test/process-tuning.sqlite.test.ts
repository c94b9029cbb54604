/**
 * The built service's process settings (src/process-settings.ts) behind PROCESS_TUNING: off runs
 * plain `node`; on restarts once with only the V8 flags the running Node knows, naming any other
 * once on stderr instead of failing to start. Engine-independent, so on SQLite only.
 */
import fs from 'node:fs'
import path from 'node:path'
import { afterAll, describe, expect, it } from 'vitest'
import { makeTempDir } from './helpers/database.js'
import { SERVER_ENTRY, startServerProcess, type ServerProcess } from './helpers/process.js'
import {
  EXPOSE_GC_FLAG,
  HEAP_GROWING_FLAG,
  NO_MAGLEV_FLAG,
  NO_PRETENURING_FLAG,
  SEMI_SPACE_FLAG,
  TUNED_MARKER,
} from '../src/process-settings.js'

const running: ServerProcess[] = []
afterAll(async () => {
  await Promise.all(running.map((server) => server.stop('SIGKILL')))
})

const FAST_HASH = { PASSWORD_HASH_MEMORY_KIB: '1024', PASSWORD_HASH_ITERATIONS: '1' }
const ADDED_FLAGS = [
  SEMI_SPACE_FLAG,
  NO_MAGLEV_FLAG,
  HEAP_GROWING_FLAG,
  NO_PRETENURING_FLAG,
  EXPOSE_GC_FLAG,
]

const commandLine = (pid: number) =>
  fs.readFileSync(`/proc/${pid}/cmdline`, 'utf8').split('\0').filter(Boolean)
const environment = (pid: number) => fs.readFileSync(`/proc/${pid}/environ`, 'utf8').split('\0')

async function start(env: Record<string, string>): Promise<ServerProcess> {
  const server = await startServerProcess({ DATA_DIR: makeTempDir(), ...FAST_HASH, ...env })
  running.push(server)
  return server
}

describe('PROCESS_TUNING', () => {
  it('off: the service runs as plain node — no V8 flag, no malloc setting, no restart', async () => {
    const server = await start({ PROCESS_TUNING: 'off' })
    expect(commandLine(server.child.pid!)).toEqual([process.execPath, SERVER_ENTRY])
    const env = environment(server.child.pid!)
    expect(env.some((entry) => entry.startsWith('MALLOC_'))).toBe(false)
    expect(env.some((entry) => entry.startsWith(`${TUNED_MARKER}=`))).toBe(false)
    expect((await server.fetch('/api/health/ready')).status).toBe(200)
    expect(server.stderr()).not.toContain('V8 flag')
    expect(await server.stop()).toBe(0)
  })

  it('on: a V8 flag this Node does not know is left out and named once on stderr; the service starts', async () => {
    // Presents the running Node as one whose V8 has no Maglev: asked with --no-maglev, it is given
    // a flag it really does not know in its place, and refuses that under the name asked.
    const preload = path.join(makeTempDir(), 'no-maglev.mjs')
    fs.writeFileSync(
      preload,
      [
        "import childProcess from 'node:child_process'",
        "import { syncBuiltinESMExports } from 'node:module'",
        'const spawnSync = childProcess.spawnSync',
        "const UNKNOWN = '--no-maglev-in-this-node'",
        'childProcess.spawnSync = (command, args, options) => {',
        "  if (!args?.includes('--version')) return spawnSync(command, args, options)",
        "  const asked = args.map((arg) => (arg === '--no-maglev' ? UNKNOWN : arg))",
        '  const result = spawnSync(command, asked, options)',
        "  result.stderr = String(result.stderr).replaceAll(UNKNOWN, '--no-maglev')",
        '  return result',
        '}',
        'syncBuiltinESMExports()',
      ].join('\n'),
    )
    const server = await start({ NODE_OPTIONS: `--import=${preload}` })
    const options = commandLine(server.child.pid!)
    expect(options).not.toContain(NO_MAGLEV_FLAG)
    expect(options).toEqual(
      expect.arrayContaining(ADDED_FLAGS.filter((flag) => flag !== NO_MAGLEV_FLAG)),
    )
    expect(environment(server.child.pid!)).toContain(`${TUNED_MARKER}=1`)
    const lines = server.stderr().split('\n')
    expect(lines.filter((line) => line.includes('V8 flag'))).toEqual([
      `switchboard: Node.js ${process.versions.node} does not know the V8 flag ${NO_MAGLEV_FLAG}; starting without it`,
    ])
    expect((await server.fetch('/api/health/ready')).status).toBe(200)
    expect(await server.stop()).toBe(0)
  })
})
