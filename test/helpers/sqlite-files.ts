/**
 * SQLite databases on files in temporary folders, for the tests of the driver itself. Everything
 * opened is closed, and every folder removed, by closeAll() (call it in afterAll).
 */
import fs from 'node:fs'
import path from 'node:path'
import { createDatabase, type DatabaseHandle } from '../../src/db/client.js'
import { makeTempDir } from './database.js'

export interface SqliteFiles {
  /** A path in a new temporary folder; the file itself is not created. */
  path(name: string): string
  /** A handle (one connection) on the file, as the service opens it (read cache on by default). */
  open(file: string, options?: { readCache?: boolean }): DatabaseHandle
  closeAll(): Promise<void>
}

export function sqliteFiles(): SqliteFiles {
  const roots: string[] = []
  const handles: DatabaseHandle[] = []
  return {
    path(name) {
      const root = makeTempDir()
      roots.push(root)
      return path.join(root, name)
    },
    open(file, options = {}) {
      const handle = createDatabase(
        {
          kind: 'sqlite',
          url: file,
          sqlitePath: file,
          poolSize: 1,
          hotReads: 'pipelined',
          auditCommit: 'grouped',
          readCache: options.readCache ?? true,
        },
        { warn: () => undefined },
      )
      handles.push(handle)
      return handle
    },
    async closeAll() {
      for (const handle of handles) await handle.close().catch(() => undefined)
      for (const root of roots) fs.rmSync(root, { recursive: true, force: true })
    },
  }
}
