/**
 * PostgreSQL: a tag's kept link count follows its link's owner when a tag is put on or taken off
 * the link while another transaction changes the owner, in either order, and when a tag is
 * deleted while a link carrying it moves (docs/decisions/0086-tag-link-counts-kept-by-owner.md).
 * The trigger reads the owner under a share lock, so the two wait for each other; without it
 * the count would stay with the old owner. Each write is a bare statement, as any future path
 * might write, not a request that locks the link first.
 */
import { beforeEach, describe, expect, it } from 'vitest'
import { useTestApp } from '../../../test/helpers/app.js'
import { createSignedInUser } from '../../../test/helpers/factories.js'
import { createLink, createTag } from '../../../test/helpers/links.js'
import { createOrganization } from '../../../test/helpers/organizations.js'
import { holdOpen, raceAgainst } from '../../../test/helpers/row-locks.js'
import { keptAndGroupedTagCounts } from '../../../test/helpers/tags.js'
import type { Executor } from '../../db/schema.js'

const t = useTestApp({ env: { RATE_LIMIT_GENERAL: '0' } })

let linkId: string
let organizationId: string
let tags: { kept: string; added: string }

beforeEach(async () => {
  const person = await createSignedInUser(t)
  organizationId = (await createOrganization(t, person.token)).id
  const kept = await createTag(t, person.token, 'kept')
  const added = await createTag(t, person.token, 'added')
  tags = { kept: kept.id, added: added.id }
  linkId = (await createLink(t, person.token, { tag_ids: [kept.id] })).id
})

async function moveToOrganization(ex: Executor): Promise<void> {
  await ex
    .updateTable('links')
    .set({ user_id: null, organization_id: organizationId })
    .where('id', '=', linkId)
    .execute()
}

async function putOn(ex: Executor, tagId: string): Promise<void> {
  await ex.insertInto('link_tags').values({ link_id: linkId, tag_id: tagId }).execute()
}

async function takeOff(ex: Executor, tagId: string): Promise<void> {
  await ex
    .deleteFrom('link_tags')
    .where('link_id', '=', linkId)
    .where('tag_id', '=', tagId)
    .execute()
}

async function expectCountsFollowTheOwner(): Promise<void> {
  const [kept, grouped] = await keptAndGroupedTagCounts(t)
  expect(kept).toEqual(grouped)
  expect(grouped.some((row) => row.endsWith(` ${organizationId} 1`))).toBe(true)
}

describe('tag link counts under concurrent writes', () => {
  it('a tag put on, then the owner changed meanwhile: the move waits and takes the count', async () => {
    const holder = holdOpen(t.deps.db, (tx) => putOn(tx, tags.added))
    const { waited } = await raceAgainst(holder, () => moveToOrganization(t.deps.db))
    expect(waited).toBe(true)
    await expectCountsFollowTheOwner()
  })

  it('the owner changed, then a tag put on meanwhile: the tag waits and counts for the new', async () => {
    const holder = holdOpen(t.deps.db, moveToOrganization)
    const { waited } = await raceAgainst(holder, () => putOn(t.deps.db, tags.added))
    expect(waited).toBe(true)
    await expectCountsFollowTheOwner()
  })

  it('a tag taken off, then the owner changed meanwhile: the count moved is the one left', async () => {
    await putOn(t.deps.db, tags.added)
    const holder = holdOpen(t.deps.db, (tx) => takeOff(tx, tags.added))
    const { waited } = await raceAgainst(holder, () => moveToOrganization(t.deps.db))
    expect(waited).toBe(true)
    await expectCountsFollowTheOwner()
  })

  it('a tag deleted while its link moves: the move neither fails nor leaves its count', async () => {
    await putOn(t.deps.db, tags.added)
    const holder = holdOpen(t.deps.db, async (tx) => {
      await tx.deleteFrom('tags').where('id', '=', tags.added).execute()
    })
    const { waited } = await raceAgainst(holder, () => moveToOrganization(t.deps.db))
    expect(waited).toBe(true)
    await expectCountsFollowTheOwner()
    const [kept] = await keptAndGroupedTagCounts(t)
    expect(kept.some((row) => row.startsWith(`${tags.added} `))).toBe(false)
  })
})
