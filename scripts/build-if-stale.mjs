#!/usr/bin/env node
/**
 * First half of `npm start`: runs `npm run build` only when the build is missing or older than
 * what it is built from, so a restart on an unchanged checkout goes straight to `node
 * dist/server.js` (a full build took 12 s before the service listened).
 *
 * "Older" compares modification times: the newest input against dist/.build-stamp, which a
 * complete `npm run build` writes last (`--stamp`), so an interrupted or server-only build never
 * counts as complete. A checkout, pull or edit gives the changed files a new time, which is all
 * this needs; the stamp is never compared with a file of the same second by accident because
 * the stamp is written after the build's last output.
 */
import { spawnSync } from 'node:child_process'
import fs from 'node:fs'
import path from 'node:path'
import { pathToFileURL } from 'node:url'

/** What the build reads, relative to the project root: directories are walked. */
export const INPUTS = [
  'src',
  'web/src',
  'web/index.html',
  'web/vite.config.ts',
  'web/tsconfig.json',
  'scripts/bundle-server.mjs',
  'scripts/bundle-stand-ins.mjs',
  'package.json',
  'package-lock.json',
  'tsconfig.json',
  'tsconfig.build.json',
]
export const STAMP = 'dist/.build-stamp'

/** Test files are not built into dist/; their edits do not make the build stale. */
const isTest = (name) => /\.test\.tsx?$/.test(name)

/** The newest modification time (ms) under the inputs that exist, and the file it belongs to. */
export function newestInput(root, inputs = INPUTS) {
  let newest = { time: 0, file: null }
  const visit = (file) => {
    let stat
    try {
      stat = fs.statSync(file)
    } catch {
      return
    }
    if (stat.isDirectory()) {
      for (const name of fs.readdirSync(file)) if (!isTest(name)) visit(path.join(file, name))
    } else if (stat.mtimeMs > newest.time) newest = { time: stat.mtimeMs, file }
  }
  for (const input of inputs) visit(path.join(root, input))
  return newest
}

/** Why a build is needed, or null when dist/ is complete and newer than every input. */
export function staleReason(root, inputs = INPUTS) {
  let stamp
  try {
    stamp = fs.statSync(path.join(root, STAMP)).mtimeMs
  } catch {
    return 'no complete build yet'
  }
  const newest = newestInput(root, inputs)
  return newest.time > stamp
    ? `${path.relative(root, newest.file)} changed since the last build`
    : null
}

export function writeStamp(root) {
  fs.writeFileSync(path.join(root, STAMP), `${new Date().toISOString()}\n`)
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? '').href) {
  const root = path.resolve(import.meta.dirname, '..')
  if (process.argv.includes('--stamp')) {
    writeStamp(root)
  } else {
    const reason = staleReason(root)
    if (reason !== null) {
      process.stderr.write(`switchboard: building (${reason})\n`)
      const npm = process.env.npm_execpath
      // The build's own output goes to stderr: `npm run cli -- setup-code` and friends print
      // something a script may read from stdout, and a rebuild must not mix into it.
      const stdio = ['ignore', 2, 2]
      const result = npm
        ? spawnSync(process.execPath, [npm, 'run', 'build', '--silent'], { cwd: root, stdio })
        : spawnSync('npm', ['run', 'build', '--silent'], {
            cwd: root,
            stdio,
            shell: process.platform === 'win32',
          })
      if (result.status !== 0) process.exit(result.status ?? 1)
    }
  }
}
