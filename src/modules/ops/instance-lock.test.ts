/** The running service's record beside its SQLite database, as `switchboard restore` reads it. */
import { spawnSync } from 'node:child_process'
import fs from 'node:fs'
import os from 'node:os'
import path from 'node:path'
import { describe, expect, it } from 'vitest'
import { makeTempDir } from '../../../test/helpers/database.js'
import { claimInstance, instanceFile, runningInstance } from './instance-lock.js'

describe('instance record', () => {
  it('names a live process on this host; is removed by its owner; a dead process or another host are told apart', () => {
    const database = path.join(makeTempDir(), 'nested', 'switchboard.db')
    const release = claimInstance(database)
    expect(fs.statSync(instanceFile(database)).mode & 0o777).toBe(0o600)
    // This process wrote it: it does not count against itself.
    expect(runningInstance(database)).toBeNull()

    const parent = process.ppid
    fs.writeFileSync(
      instanceFile(database),
      JSON.stringify({ pid: parent, host: os.hostname(), started_at: 'then' }),
    )
    expect(runningInstance(database)).toMatchObject({ pid: parent, checkable: true })

    // A process that has exited (its PID is not reused this quickly).
    const ended = spawnSync(process.execPath, ['-e', '']).pid
    fs.writeFileSync(
      instanceFile(database),
      JSON.stringify({ pid: ended, host: os.hostname(), started_at: 'then' }),
    )
    expect(runningInstance(database)).toBeNull()

    fs.writeFileSync(
      instanceFile(database),
      JSON.stringify({ pid: 1, host: 'another-host', started_at: 'then' }),
    )
    expect(runningInstance(database)).toMatchObject({
      pid: 1,
      host: 'another-host',
      checkable: false,
    })

    // Someone else's record stays when this process releases.
    release()
    expect(fs.existsSync(instanceFile(database))).toBe(true)
    fs.writeFileSync(instanceFile(database), 'half-writ')
    expect(runningInstance(database)).toBeNull()

    const again = claimInstance(database)
    again()
    expect(fs.existsSync(instanceFile(database))).toBe(false)
  })
})
