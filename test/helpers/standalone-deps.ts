/**
 * The service's dependencies over a fresh, migrated test database, without an app: nothing runs in
 * the background (no checkpointer, no notification sender), so a test drives such work itself.
 */
import fs from 'node:fs'
import { parseConfig } from '../../src/config.js'
import { migrateToLatest } from '../../src/db/migrate.js'
import { createDeps, type Deps } from '../../src/deps.js'
import { createLogger } from '../../src/logger.js'
import { createTestDatabase, makeTempDir } from './database.js'

export interface StandaloneDeps {
  deps: Deps
  /** Closes the pools, drops the database and removes the data directory. */
  close(): Promise<void>
}

export async function standaloneDeps(): Promise<StandaloneDeps> {
  const dataDir = makeTempDir()
  const database = await createTestDatabase(dataDir)
  const config = parseConfig({
    DATA_DIR: dataDir,
    DATABASE_URL: database.url,
    PUBLIC_URL: 'http://switchboard.test',
    LOG_LEVEL: 'silent',
  })
  const deps = createDeps(config, { logger: createLogger(config) })
  await migrateToLatest(deps.database)
  return {
    deps,
    async close() {
      await deps.close()
      await database.drop()
      fs.rmSync(dataDir, { recursive: true, force: true })
    },
  }
}
