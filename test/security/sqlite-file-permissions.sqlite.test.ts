/**
 * The SQLite database, its WAL and shared-memory files are 0600 and their
 * directory 0700, whoever created the directory and whatever mode it had.
 */
import fs from 'node:fs'
import path from 'node:path'
import { afterAll, describe, expect, it } from 'vitest'
import { openSqlite } from '../../src/db/sqlite.js'
import { makeTempDir } from '../helpers/database.js'

const mode = (file: string) => fs.statSync(file).mode & 0o777
const roots: string[] = []
afterAll(() => {
  for (const root of roots) fs.rmSync(root, { recursive: true, force: true })
})

describe('SQLite file permissions', () => {
  it('database, WAL and SHM files are 0600 and the directory 0700 when the service creates them', () => {
    const root = makeTempDir()
    roots.push(root)
    const file = path.join(root, 'fresh', 'nested', 'switchboard.db')
    const database = openSqlite(file)
    database.exec('create table t (x integer); insert into t values (1)')
    try {
      expect(mode(path.dirname(file)).toString(8)).toBe('700')
      for (const f of [file, `${file}-wal`, `${file}-shm`]) expect(mode(f).toString(8)).toBe('600')
    } finally {
      database.close()
    }
  })

  it('narrows a directory and files that someone else created world-readable', () => {
    const root = makeTempDir()
    roots.push(root)
    const directory = path.join(root, 'operator-made')
    fs.mkdirSync(directory, { mode: 0o755 })
    fs.chmodSync(directory, 0o755)
    const file = path.join(directory, 'switchboard.db')
    const first = openSqlite(file)
    first.exec('create table t (x integer); insert into t values (1)')
    first.close()
    for (const f of [file, `${file}-wal`, `${file}-shm`])
      if (fs.existsSync(f)) fs.chmodSync(f, 0o644)
    fs.chmodSync(directory, 0o755)

    const database = openSqlite(file)
    database.exec('insert into t values (2)')
    try {
      expect(mode(directory).toString(8)).toBe('700')
      for (const f of [file, `${file}-wal`, `${file}-shm`]) expect(mode(f).toString(8)).toBe('600')
    } finally {
      database.close()
    }
  })
})
