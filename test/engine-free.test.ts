/**
 * The engine-free test files (helpers/engine-free.ts) run on SQLite only. Each must still exist
 * and open no database — no test app, test database, factories, query plans or service
 * dependencies — or its PostgreSQL run would be lost without a sound.
 */
import fs from 'node:fs'
import path from 'node:path'
import { describe, expect, it } from 'vitest'
import { ENGINE_FREE } from './helpers/engine-free.js'

const ROOT = path.resolve(import.meta.dirname, '..')

/** What a test that opens a database imports or calls. */
const OPENS_A_DATABASE =
  /helpers\/(app|database|factories|query-plans|scim|standalone-deps)\.js|\bcreateDeps\(|\bmigrateToLatest\(|\bcreateTestDatabase\(/

describe('the engine-free test files', () => {
  it.each(ENGINE_FREE)('%s exists and opens no database', (file) => {
    const source = fs.readFileSync(path.join(ROOT, file), 'utf8')
    expect(source).not.toMatch(OPENS_A_DATABASE)
  })

  it('holds the pattern to what a database test imports', () => {
    const databaseTest = fs.readFileSync(
      path.join(ROOT, 'src/modules/notifications/sender-closing.test.ts'),
      'utf8',
    )
    expect(databaseTest).toMatch(OPENS_A_DATABASE)
  })
})
