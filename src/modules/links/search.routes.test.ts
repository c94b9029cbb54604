/**
 * The Links list's search (`GET /api/links?q=`): a substring of the title, URL or slug ignoring
 * case — Unicode's case, as German titles need — with the page, its cursor and the count agreeing,
 * and the search following each change of a link: its text, its owner, its deletion.
 */
import { beforeAll, describe, expect, it } from 'vitest'
import { useTestApp } from '../../../test/helpers/app.js'
import {
  bearer,
  createSignedInUser,
  type SignedIn,
  type TestUser,
} from '../../../test/helpers/factories.js'
import { createLink, createTag, type LinkJson } from '../../../test/helpers/links.js'
import { addOrgMember, createOrgWithRoles } from '../../../test/helpers/organizations.js'

const t = useTestApp({ env: { RATE_LIMIT_GENERAL: '0' } })

type Method = 'GET' | 'PATCH' | 'DELETE'
const call = (user: SignedIn, method: Method, url: string, payload?: object) =>
  t.app.inject({
    method,
    url: `/api/links${url}`,
    headers: bearer(user.token),
    ...(payload !== undefined && { payload }),
  })

/** Every page of the search, two links at a time, and the count of the same search. */
async function search(user: SignedIn, q: string, extra = '') {
  const found: string[] = []
  let cursor: string | null = null
  do {
    const after: string = cursor === null ? '' : `&cursor=${cursor}`
    const page = await call(user, 'GET', `?limit=2&q=${encodeURIComponent(q)}${extra}${after}`)
    expect(page.statusCode, page.body).toBe(200)
    const body = page.json<{ items: LinkJson[]; next_cursor: string | null }>()
    found.push(...body.items.map((item) => item.id))
    cursor = body.next_cursor
  } while (cursor !== null)
  const counted = await call(user, 'GET', `/count?q=${encodeURIComponent(q)}${extra}`)
  expect(counted.json<{ total: number }>().total, `count of ${q}`).toBe(found.length)
  return found
}

describe('searching the links ignoring case', () => {
  let dora: TestUser & SignedIn
  const links: LinkJson[] = []
  let tagId: string
  beforeAll(async () => {
    dora = await createSignedInUser(t)
    tagId = (await createTag(t, dora.token, 'Büro')).id
    const made = [
      { url: 'https://office.example/', title: 'Ärger im Büro', tag_ids: [tagId] },
      { url: 'https://office.example/OVERVIEW', title: 'Plan' },
      { url: 'https://example.com/x', title: 'ÄRGERLICH teuer', slug: 'teuer' },
      { url: 'https://example.com/y', title: 'Nothing here', slug: 'Buero-Plan' },
    ]
    for (const link of made) links.push(await createLink(t, dora.token, link))
  })

  it('folds the case of letters beyond ASCII in the title, URL and slug, page and count alike', async () => {
    const ids = (indexes: number[]) => indexes.map((i) => links[i]!.id)
    expect(await search(dora, 'ärger')).toEqual(ids([2, 0]))
    expect(await search(dora, 'BÜRO')).toEqual(ids([0]))
    expect(await search(dora, 'buero')).toEqual(ids([3]))
    expect(await search(dora, 'overview')).toEqual(ids([1]))
    expect(await search(dora, 'Ärger im')).toEqual(ids([0]))
    // With a tag too (the list's other path) the same rule holds.
    expect(await search(dora, 'ärger', `&tag_id=${tagId}`)).toEqual(ids([0]))
    expect(await search(dora, 'ärgerlich teuer!')).toEqual([])
  })

  it('finds a term within the title, the URL or the slug, never across two of them', async () => {
    const [nothing] = [links[3]!.id]
    expect(await search(dora, 'here')).toEqual([nothing])
    expect(await search(dora, 'com/y')).toEqual([nothing])
    for (const spanning of ['herehttps', 'here https', 'com/ybuero', 'yb', 'eh'])
      expect(await search(dora, spanning), spanning).toEqual([])
  })
})

describe('a search follows the link', () => {
  it('through a new title, a move into an organization and a deletion', async () => {
    const org = await createOrgWithRoles(t)
    const [erin, finn] = await Promise.all([createSignedInUser(t), createSignedInUser(t)])
    await addOrgMember(t, org.owner.token, org.id, erin, 'admin')
    await addOrgMember(t, org.owner.token, org.id, finn, 'member')
    const older = await createLink(t, erin.token, { url: 'https://zoo.example/a', title: 'Numbat' })
    const link = await createLink(t, erin.token, { url: 'https://zoo.example/', title: 'Wombat' })
    expect(await search(erin, 'wombat')).toEqual([link.id])
    expect(await search(finn, 'wombat')).toEqual([])

    expect((await call(erin, 'PATCH', `/${link.id}`, { title: 'Numbat care' })).statusCode).toBe(
      200,
    )
    expect(await search(erin, 'wombat')).toEqual([])
    expect(await search(erin, 'numbat')).toEqual([link.id, older.id])

    const moved = await call(erin, 'PATCH', `/${link.id}`, { organization_id: org.id })
    expect(moved.statusCode, moved.body).toBe(200)
    expect(await search(finn, 'numbat')).toEqual([link.id])
    expect(await search(finn, 'numbat', `&organization_id=${org.id}`)).toEqual([link.id])
    expect(await search(erin, 'numbat', '&owner=personal')).toEqual([older.id])

    expect((await call(erin, 'DELETE', `/${link.id}`)).statusCode).toBe(204)
    expect(await search(finn, 'numbat')).toEqual([])
    expect(await search(erin, 'numbat')).toEqual([older.id])
  })
})
