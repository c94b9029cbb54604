/**
 * The sender when its service closes: a pass whose signal is aborted claims no further row, and
 * the rows it left are due for the next pass. Run over the service's dependencies without an app,
 * so no background sender takes the rows meanwhile.
 */
import { randomUUID } from 'node:crypto'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { standaloneDeps, type StandaloneDeps } from '../../../test/helpers/standalone-deps.js'
import type { Deps } from '../../deps.js'
import { insertOutboxRow } from './repo.js'
import { sendDueNotifications } from './sender.js'

let standalone: StandaloneDeps
let deps: Deps

beforeAll(async () => {
  standalone = await standaloneDeps()
  deps = standalone.deps
})

afterAll(async () => standalone?.close())

async function outbox() {
  return deps.db
    .selectFrom('mail_outbox')
    .select(['status', 'attempts'])
    .orderBy('created_at')
    .execute()
}

describe('the notification sender when the service closes', () => {
  it('claims no row once its signal is aborted; the rows stay due for the next pass', async () => {
    const at = new Date(Date.now() - 1000).toISOString()
    for (const recipient of ['one@example.com', 'two@example.com'])
      await insertOutboxRow(deps.db, {
        id: randomUUID(),
        user_id: null,
        recipient,
        kind: 'new_sign_in',
        language: 'en',
        params: '{}',
        next_attempt_at: at,
        created_at: at,
      })
    await sendDueNotifications(deps, AbortSignal.abort())
    expect(await outbox()).toEqual([
      { status: 'pending', attempts: 0 },
      { status: 'pending', attempts: 0 },
    ])
    // The next pass takes both (no SMTP here: each is recorded as skipped).
    await sendDueNotifications(deps)
    expect(await outbox()).toEqual([
      { status: 'skipped', attempts: 1 },
      { status: 'skipped', attempts: 1 },
    ])
  })
})
