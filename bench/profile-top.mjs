#!/usr/bin/env node
/**
 * node bench/profile-top.mjs <file.cpuprofile> [n] — the top of a V8 CPU profile (written by
 * `node --cpu-prof`, e.g. through `npm run bench -- --profile <dir>`): the n functions (default 25)
 * with the most self time, as a share of the samples taken while not idle, with their place in the
 * source. Idle time (the event loop waiting) and the garbage collector are listed as such.
 */
import fs from 'node:fs'
import path from 'node:path'

const [file, n = '25'] = process.argv.slice(2)
if (file === undefined) {
  console.error('usage: node bench/profile-top.mjs <file.cpuprofile> [n]')
  process.exit(2)
}
const profile = JSON.parse(fs.readFileSync(file, 'utf8'))
const byId = new Map(profile.nodes.map((node) => [node.id, node]))
const selfSamples = new Map()
for (const id of profile.samples) selfSamples.set(id, (selfSamples.get(id) ?? 0) + 1)

const byFunction = new Map()
let busy = 0
let idle = 0
for (const [id, count] of selfSamples) {
  const { functionName, url, lineNumber } = byId.get(id).callFrame
  if (functionName === '(idle)') {
    idle += count
    continue
  }
  busy += count
  const where = url
    ? `${path.relative(process.cwd(), url.replace(/^file:\/\//, ''))}:${lineNumber + 1}`
    : ''
  const key = `${functionName || '(anonymous)'} ${where}`.trim()
  byFunction.set(key, (byFunction.get(key) ?? 0) + count)
}
const top = [...byFunction].sort((a, b) => b[1] - a[1]).slice(0, Number(n))
console.log(
  `${busy} busy samples (${Math.round((busy / (busy + idle)) * 100)} % of ${busy + idle}); self time:`,
)
for (const [key, count] of top)
  console.log(`${((count / busy) * 100).toFixed(1).padStart(5)} %  ${key}`)
