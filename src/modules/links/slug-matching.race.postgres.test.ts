/**
 * Slug folding switched while links are written (PostgreSQL, where writes run at once):
 * a link written while the rule changes ends up keyed by the rule that is in force once both have
 * committed, whichever started first (slug-matching.repo.ts holdSlugRule). SQLite runs one write
 * transaction at a time, so the race cannot happen there.
 */
import { describe, expect, it } from 'vitest'
import { useTestApp } from '../../../test/helpers/app.js'
import { bearer, createSignedInUser, type SignedIn } from '../../../test/helpers/factories.js'
import { holdSlugRule, readFoldSetting, rekeyLinks } from './slug-matching.repo.js'
import { GO_LINKS_SETTING } from './slug-matching.js'
import { upsertSettingRow } from '../settings/repo.js'
import { insertLink } from './repo.js'

const t = useTestApp({ env: { RATE_LIMIT_GENERAL: '0' } })

const setFolding = (admin: SignedIn, fold: boolean) =>
  t.app.inject({
    method: 'PUT',
    url: '/api/admin/settings/go-links',
    headers: bearer(admin.token),
    payload: { fold_separators: fold },
  })

const keyOf = async (slug: string) =>
  (
    await t.deps.db
      .selectFrom('links')
      .select('slug_key')
      .where('slug', '=', slug)
      .executeTakeFirstOrThrow()
  ).slug_key

const settled = (promise: Promise<unknown>) => {
  let done = false
  void promise.finally(() => (done = true))
  return () => done
}

const pause = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms))

describe('slug folding switched during a write', () => {
  it('a link created while the switch is in flight waits for it and is keyed by the new rule', async () => {
    const user = await createSignedInUser(t)
    let release!: () => void
    const held = new Promise<void>((resolve) => (release = resolve))
    let locked!: () => void
    const lockTaken = new Promise<void>((resolve) => (locked = resolve))
    // The switch's transaction, stopped after its lock (as updateGoLinkSettings runs it).
    const switching = t.deps.db.transaction().execute(async (tx) => {
      await holdSlugRule(tx, 'exclusive')
      locked()
      await held
      await rekeyLinks(tx, true)
      await upsertSettingRow(tx, {
        key: GO_LINKS_SETTING,
        value: JSON.stringify({ fold_separators: true }),
        updatedAt: new Date().toISOString(),
        updatedBy: null,
      })
    })
    await lockTaken
    const creating = t.app.inject({
      method: 'POST',
      url: '/api/links',
      headers: bearer(user.token),
      payload: { url: 'https://a.example/', slug: 'Road-Map' },
    })
    const created = settled(creating)
    await pause(300)
    const waited = !created()
    release()
    await switching
    expect(waited).toBe(true)
    expect((await creating).statusCode).toBe(201)
    expect(await keyOf('Road-Map')).toBe('roadmap')
  })

  it('a switch waits for a link being written, and re-keys it', async () => {
    const admin = await createSignedInUser(t, { isAdmin: true })
    const user = await createSignedInUser(t)
    await t.deps.db.deleteFrom('settings').where('key', '=', GO_LINKS_SETTING).execute()
    let release!: () => void
    const held = new Promise<void>((resolve) => (release = resolve))
    let written!: () => void
    const linkWritten = new Promise<void>((resolve) => (written = resolve))
    // A writer's transaction, as createLink runs it: the rule read under the shared hold, the row
    // written, not yet committed.
    const writing = t.deps.db.transaction().execute(async (tx) => {
      await holdSlugRule(tx, 'shared')
      const fold = await readFoldSetting(tx, GO_LINKS_SETTING)
      expect(fold).toBe(false)
      const now = new Date().toISOString()
      await insertLink(tx, {
        id: `race-link-${user.user.id}`,
        user_id: user.user.id,
        organization_id: null,
        url: 'https://b.example/',
        title: 'B',
        slug: 'Status_Page',
        slug_key: 'status_page',
        forwarding_enabled: true,
        created_by: user.user.id,
        created_at: now,
      })
      written()
      await held
    })
    await linkWritten
    const switching = setFolding(admin, true)
    const switched = settled(switching)
    await pause(300)
    const waited = !switched()
    release()
    await writing
    expect(waited).toBe(true)
    expect((await switching).statusCode).toBe(200)
    expect(await keyOf('Status_Page')).toBe('statuspage')
  })
})
