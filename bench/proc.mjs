/**
 * What the benches read of a process from Linux's /proc: CPU time, wake-ups, system calls and
 * memory of the measured server, and the CPU time of the PostgreSQL server's processes. Per request
 * these are figures the machine's other load hardly moves, unlike throughput.
 */
import fs from 'node:fs'

/** A `name: <number>` line of a /proc text (status, io); 0 when absent. */
const field = (text, name) => Number(new RegExp(`${name}:\\s+(\\d+)`).exec(text)?.[1] ?? 0)

/**
 * CPU time (user + system) a process has used so far, in milliseconds (/proc/<pid>/stat counts
 * clock ticks of 10 ms).
 */
export function cpuMs(pid) {
  const fields = fs.readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1].split(' ')
  return (Number(fields[11]) + Number(fields[12])) * 10
}

/**
 * Times the server's main thread slept and was woken (/proc/<pid>/status: it sleeps only in the
 * event loop's poll), and the process's read and write system calls (/proc/<pid>/io). Per request
 * they count the batching — how many requests one wake-up or one socket write serves.
 */
export function wakeupsAndSyscalls(pid) {
  const status = fs.readFileSync(`/proc/${pid}/status`, 'utf8')
  const io = fs.readFileSync(`/proc/${pid}/io`, 'utf8')
  return {
    wakeups: field(status, 'voluntary_ctxt_switches'),
    syscalls: field(io, 'syscr') + field(io, 'syscw'),
  }
}

/** Resident memory of a process in MiB: `VmRSS` now, or `VmHWM`, its peak. */
export function memoryMiB(pid, name) {
  const kib = field(fs.readFileSync(`/proc/${pid}/status`, 'utf8'), name)
  return Math.round((kib / 1024) * 10) / 10
}

/**
 * The CPU time (ns) and times put on a CPU of every `postgres` process of this machine, by pid
 * (/proc/<pid>/schedstat); the server should have nothing else to do during the measurement. With
 * `database`, only the backends connected to that database (named in their process title): the
 * figure for a server that other work uses too, leaving out its shared background processes.
 */
export function postgresCpu(database = null) {
  const byPid = new Map()
  for (const pid of fs.readdirSync('/proc')) {
    if (!/^[0-9]+$/.test(pid)) continue
    try {
      if (fs.readFileSync(`/proc/${pid}/comm`, 'utf8').trim() !== 'postgres') continue
      if (database !== null && !backendOf(pid, database)) continue
      const [ns, , slices] = fs
        .readFileSync(`/proc/${pid}/schedstat`, 'utf8')
        .split(' ')
        .map(Number)
      byPid.set(pid, { ns, slices })
    } catch {
      // The process ended meanwhile.
    }
  }
  return byPid
}

/** A backend's title: `postgres: <cluster>: <user> <database> <client> <state>`. */
function backendOf(pid, database) {
  return fs.readFileSync(`/proc/${pid}/cmdline`, 'utf8').includes(` ${database} `)
}

/**
 * What the PostgreSQL processes alive now used since `before` (postgresCpu(database)). A process
 * that ended meanwhile, e.g. an autovacuum worker, is left out: subtracting what it had used would
 * make the figure small or negative.
 */
export function postgresCpuSince(before, database = null) {
  let ns = 0
  let slices = 0
  for (const [pid, now] of postgresCpu(database)) {
    const then = before.get(pid) ?? { ns: 0, slices: 0 }
    ns += now.ns - then.ns
    slices += now.slices - then.slices
  }
  return { ns, slices }
}
