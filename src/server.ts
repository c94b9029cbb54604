/**
 * `node dist/server.js`: checks the Node version before loading anything that could fail on an
 * older one, applies the process settings below, turns on Node's module compile cache (start-up is
 * mostly compiling modules; the cache makes every later start cheaper), then starts the service
 * (start.ts, bundled into one file by scripts/bundle-server.mjs).
 */
import module from 'node:module'
import { exitUnlessSupportedNode } from './node-version.js'
import {
  processSettings,
  refusedFlags,
  unknownFlagLine,
  withoutRefusedFlags,
} from './process-settings.js'

exitUnlessSupportedNode()

// V8's heap limits are fixed when the process starts, so settings this process lacks are applied
// by replacing it (same PID, same descriptors) with one started with them — once, before anything
// is loaded, and only with the flags this Node knows. Where execve is unavailable (Windows) the
// service runs with Node's defaults; PROCESS_TUNING=off runs it so everywhere.
const wanted = processSettings(process.execArgv, process.env)
if (wanted !== null && typeof process.execve === 'function') {
  const added = wanted.execArgv.filter((option) => !process.execArgv.includes(option))
  const refused = refusedFlags(process.execPath, added)
  const { settings, unknown } = withoutRefusedFlags(wanted, refused)
  for (const flag of unknown) process.stderr.write(unknownFlagLine(flag, process.versions.node))
  process.execve(
    process.execPath,
    [process.execPath, ...settings.execArgv, ...process.argv.slice(1)],
    settings.env,
  )
}

module.enableCompileCache?.()
await import('./start.js')
