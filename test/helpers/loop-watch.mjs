/**
 * Preloaded into a server process by a test (NODE_OPTIONS=--import=<this file>, with
 * LOOP_WATCH_FILE naming a file): records the stretches the process's event loop ran without
 * giving way. A timer every TICK_MS reads the main thread's CPU time (process.threadCpuUsage, in
 * microseconds); what the thread used between two turns of the timer is the work of at most one
 * loop turn plus TICK_MS. So a loop held for 100 ms shows as a stretch of at least 100 ms, while
 * time the process waited for a CPU, and turns that gave way, do not add up into one. Each stretch
 * of FLOOR_MS or more is appended to the file as a line `<from> <to> <cpu>`: wall-clock ms since
 * the epoch, and the CPU ms used. Plain JavaScript, so the built server's Node loads it as it is.
 */
import fs from 'node:fs'

const TICK_MS = 5
const FLOOR_MS = 10

const file = process.env.LOOP_WATCH_FILE
if (file !== undefined && file !== '') {
  const fd = fs.openSync(file, 'a')
  const cpuMs = () => {
    const { user, system } = process.threadCpuUsage()
    return (user + system) / 1000
  }
  let since = Date.now()
  let cpu = cpuMs()
  setInterval(() => {
    const now = Date.now()
    const used = cpuMs() - cpu
    if (used >= FLOOR_MS) fs.writeSync(fd, `${since} ${now} ${used.toFixed(1)}\n`)
    since = now
    cpu += used
  }, TICK_MS).unref()
}
