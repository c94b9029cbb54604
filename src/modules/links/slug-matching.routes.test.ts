/**
 * The instance's slug matching — ignoring case only (default), or also "-" and "_" once an
 * administrator switches folding on; applied on lookup and on create; conflicts refuse the switch.
 */
import { describe, expect, it } from 'vitest'
import { useTestApp } from '../../../test/helpers/app.js'
import { bearer, createSignedInUser, type SignedIn } from '../../../test/helpers/factories.js'
import { createLink } from '../../../test/helpers/links.js'

const t = useTestApp({ env: { RATE_LIMIT_GENERAL: '0' } })

const setFolding = (admin: SignedIn, fold: boolean) =>
  t.app.inject({
    method: 'PUT',
    url: '/api/admin/settings/go-links',
    headers: bearer(admin.token),
    payload: { fold_separators: fold },
  })

const go = (user: SignedIn, path: string) =>
  t.app.inject({ method: 'GET', url: path, headers: bearer(user.token) })

describe('slug matching', () => {
  it('is off by default, for administrators only, and audited', async () => {
    const admin = await createSignedInUser(t, { isAdmin: true })
    const user = await createSignedInUser(t)
    const read = await t.app.inject({
      method: 'GET',
      url: '/api/admin/settings/go-links',
      headers: bearer(admin.token),
    })
    expect(read.json()).toEqual({ fold_separators: false, updated_at: null })
    expect((await setFolding(user, true)).statusCode).toBe(403)
    const on = await setFolding(admin, true)
    expect(on.statusCode).toBe(200)
    expect(on.json()).toMatchObject({ fold_separators: true, updated_at: expect.any(String) })
    const off = await setFolding(admin, false)
    expect(off.json().fold_separators).toBe(false)
    const events = await t.deps.db
      .selectFrom('audit_events')
      .select(['action', 'metadata'])
      .where('action', '=', 'settings.go_links')
      .orderBy('at')
      .execute()
    expect(events.map((event) => JSON.parse(event.metadata).fold_separators)).toEqual([true, false])
  })

  it('folds "-" and "_" on lookup and create once switched on, and stops when switched off', async () => {
    const admin = await createSignedInUser(t, { isAdmin: true })
    const user = await createSignedInUser(t)
    await createLink(t, user.token, { slug: 'Meeting-Notes', url: 'https://notes.example/' })
    expect((await go(user, '/go/meetingnotes')).statusCode).toBe(404)
    expect((await setFolding(admin, true)).statusCode).toBe(200)
    for (const path of [
      '/go/meetingnotes',
      '/go/meeting_notes',
      '/go/MEETING-NOTES',
      '/go/m-e-e-t-i-n-g-notes',
    ]) {
      const response = await go(user, path)
      expect(response.statusCode, path).toBe(302)
      expect(response.headers.location).toBe('https://notes.example/')
    }
    // A new slug of the same owner that folds to the same key is taken.
    const taken = await t.app.inject({
      method: 'POST',
      url: '/api/links',
      headers: bearer(user.token),
      payload: { url: 'https://x.example/', slug: 'meeting_notes' },
    })
    expect(taken.statusCode).toBe(409)
    const availability = await t.app.inject({
      method: 'GET',
      url: '/api/links/slug-availability?slug=MeetingNotes',
      headers: bearer(user.token),
    })
    expect(availability.json().available).toBe(false)
    // Created while folding: found folded too.
    await createLink(t, user.token, { slug: 'road-map', url: 'https://roadmap.example/' })
    expect((await go(user, '/go/roadmap')).headers.location).toBe('https://roadmap.example/')

    expect((await setFolding(admin, false)).statusCode).toBe(200)
    expect((await go(user, '/go/meetingnotes')).statusCode).toBe(404)
    expect((await go(user, '/go/meeting-notes')).statusCode).toBe(302)
    expect((await go(user, '/go/road-map')).statusCode).toBe(302)
  })

  it('refuses to switch folding on while an owner has slugs that would collide, naming them', async () => {
    const admin = await createSignedInUser(t, { isAdmin: true })
    const user = await createSignedInUser(t)
    const other = await createSignedInUser(t)
    const a = await createLink(t, user.token, { slug: 'on-call' })
    await createLink(t, user.token, { slug: 'oncall' })
    // Another owner's "on_call" is no conflict: slugs repeat across owners.
    await createLink(t, other.token, { slug: 'on_call' })
    const refused = await setFolding(admin, true)
    expect(refused.statusCode).toBe(409)
    expect(refused.json().reason).toBe('ALREADY_EXISTS')
    expect(refused.json().details).toEqual([
      {
        field: 'fold_separators',
        message: `user ${user.user.id}: on-call, oncall`,
        code: 'invalid',
      },
    ])
    // Nothing changed.
    expect(
      (
        await t.app.inject({
          method: 'GET',
          url: '/api/admin/settings/go-links',
          headers: bearer(admin.token),
        })
      ).json().fold_separators,
    ).toBe(false)
    expect((await go(user, '/go/oncall')).statusCode).toBe(302)
    await t.app.inject({
      method: 'PATCH',
      url: `/api/links/${a.id}`,
      headers: bearer(user.token),
      payload: { slug: 'on-call-old' },
    })
    expect((await setFolding(admin, true)).statusCode).toBe(200)
    // Two owners with the folded slug: the chooser, as for any shared slug.
    expect((await go(other, '/go/oncall')).statusCode).toBe(302)
    expect((await setFolding(admin, false)).statusCode).toBe(200)
  })
})
