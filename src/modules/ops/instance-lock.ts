/**
 * Which process serves an SQLite database, so `switchboard restore` can refuse to replace the file
 * under a running service (its open connection would go on writing into the replaced file's WAL,
 * and the restore would be lost or the database corrupted).
 *
 * The service writes `<database>.pid` (its PID and host name) when it starts and removes it when it
 * shuts down cleanly. A file left by a crash names a process that no longer exists on this host,
 * and is ignored. A file written on another host (a container's host name differs from the
 * machine's) cannot be checked from here: it counts as running, and the message says how to tell
 * and what to remove. Node has no portable advisory file lock, hence a PID file.
 */
import fs from 'node:fs'
import os from 'node:os'
import path from 'node:path'

export interface InstanceRecord {
  pid: number
  host: string
  started_at: string
}

export function instanceFile(databaseFile: string): string {
  return `${databaseFile}.pid`
}

/**
 * Records this process as the one serving the database; the returned function removes the record if
 * it is still ours.
 */
export function claimInstance(databaseFile: string, now = new Date()): () => void {
  const file = instanceFile(databaseFile)
  const record: InstanceRecord = {
    pid: process.pid,
    host: os.hostname(),
    started_at: now.toISOString(),
  }
  fs.mkdirSync(path.dirname(file), { recursive: true, mode: 0o700 })
  const draft = `${file}.${process.pid}.tmp`
  fs.writeFileSync(draft, `${JSON.stringify(record)}\n`, { mode: 0o600 })
  fs.renameSync(draft, file)
  return () => {
    const current = readRecord(file)
    if (current?.pid === record.pid && current.host === record.host)
      fs.rmSync(file, { force: true })
  }
}

function readRecord(file: string): InstanceRecord | null {
  try {
    const value = JSON.parse(fs.readFileSync(file, 'utf8')) as Partial<InstanceRecord>
    if (typeof value.pid === 'number' && typeof value.host === 'string')
      return { pid: value.pid, host: value.host, started_at: String(value.started_at) }
  } catch {
    // Unreadable or half-written: nothing to go by.
  }
  return null
}

function isAlive(pid: number): boolean {
  try {
    process.kill(pid, 0)
    return true
  } catch (error) {
    // EPERM: the process exists but belongs to someone else.
    return (error as NodeJS.ErrnoException).code === 'EPERM'
  }
}

/**
 * The service that holds the database, or null when none does (no record, or a record of a process
 * that has ended).
 */
export function runningInstance(
  databaseFile: string,
): (InstanceRecord & { file: string; checkable: boolean }) | null {
  const file = instanceFile(databaseFile)
  const record = readRecord(file)
  if (record === null) return null
  if (record.host !== os.hostname()) return { ...record, file, checkable: false }
  return record.pid !== process.pid && isAlive(record.pid)
    ? { ...record, file, checkable: true }
    : null
}
