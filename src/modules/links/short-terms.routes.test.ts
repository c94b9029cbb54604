/**
 * A search of one or two characters (`GET /api/links?q=`) among more links than the walk's first
 * round tests, whose links come on SQLite from the trigram index's vocabulary and, for two
 * characters, on PostgreSQL from its index of character pairs (the instance holds 1,000 links or
 * more): the term at the end of a title, a slug of one or two characters, upper case, characters
 * without case, a title changed, a link deleted — the page, the count, the links not pinned and
 * the most clicked order all agree with the term's own meaning, as the links tested one by one
 * where the index is not asked (a term with case beyond ASCII, one beginning too many trigrams, a
 * term of one character on PostgreSQL) do.
 */
import { beforeAll, describe, expect, it } from 'vitest'
import { useTestApp } from '../../../test/helpers/app.js'
import {
  bearer,
  createSignedInUser,
  type SignedIn,
  type TestUser,
} from '../../../test/helpers/factories.js'
import { createLink, importJsonLinks, listAllLinks } from '../../../test/helpers/links.js'
import {
  analyzeIfPostgres,
  sqliteReadsDuring,
  statementsOf,
} from '../../../test/helpers/query-plans.js'

const t = useTestApp({ env: { RATE_LIMIT_GENERAL: '0' } })

/**
 * More than the walk's first round (128): the walk gives up on a term in none of them; and with the
 * others more than 1,000, from which PostgreSQL reads a rare term from an index.
 */
const NEWER_LINKS = 1000

/** What follows "Zq" in as many titles: 33 trigrams begin with "zq", more than are looked up. */
const AFTER_ZQ = 'abcdefghijklmnoprstvwxy0123456789'

let person: TestUser & SignedIn
const ids: Record<string, string> = {}

beforeAll(async () => {
  person = await createSignedInUser(t)
  const links: Record<string, Record<string, unknown>> = {
    endOfTitle: { url: 'https://a.example/one', title: 'Iraqu' },
    slugOfTwo: { url: 'https://b.example/two', title: 'Notes', slug: 'QU' },
    upperCase: { url: 'https://c.example/three', title: 'QUIET place' },
    inUrl: { url: 'https://d.example/aqua', title: 'Water' },
    spaced: { url: 'https://e.example/four', title: 'Q u' },
    kelvin: { url: 'https://f.example/five', title: 'Lin\u212A' },
    caseless: { url: 'https://g.example/six', title: '東京 office' },
    sign: { url: 'https://h.example/seven', title: 'Room #' },
    accent: { url: 'https://i.example/eight', title: 'Café' },
    slugOfOne: { url: 'https://j.example/nine', title: 'Notes', slug: 'V' },
  }
  for (const character of AFTER_ZQ)
    links[`zq${character}`] = { url: `https://zq.example/${character}`, title: `Zq${character}` }
  for (const [name, fields] of Object.entries(links))
    ids[name] = (await createLink(t, person.token, fields)).id
  const newer = Array.from({ length: NEWER_LINKS }, (_, n) => ({
    url: `https://filler.example/${'abcdefghij'[n % 10]}${'klmnop'[n % 6]}${n}`,
    title: 'Filler',
  }))
  expect((await importJsonLinks(t, person.token, newer)).imported).toBe(NEWER_LINKS)
  await analyzeIfPostgres(t)
})

const get = async <T>(url: string): Promise<T> => {
  const response = await t.app.inject({ method: 'GET', url, headers: bearer(person.token) })
  expect(response.statusCode, response.body).toBe(200)
  return response.json<T>()
}

/** Every page of the search, two links at a time. */
async function pages(q: string, extra = ''): Promise<string[]> {
  const query = `q=${encodeURIComponent(q)}${extra}`
  return (await listAllLinks(t, person.token, query, 2)).map((link) => link.id)
}

/** The page, the count, the links not pinned and the most clicked order of one term. */
async function answers(q: string) {
  const count = await get<{ total: number }>(`/api/links/count?q=${encodeURIComponent(q)}`)
  return {
    newest: await pages(q),
    count: count.total,
    unpinned: await pages(q, '&pinned=false'),
    mostClicked: await pages(q, '&sort=clicks_30d'),
  }
}

/** The links, newest first, as every answer lists them (none has been clicked). */
const newestFirst = (...names: string[]) =>
  names.map((name) => ids[name]!).sort((a, b) => order(b) - order(a))
const order = (id: string) => Object.values(ids).indexOf(id)

async function expectFinds(q: string, names: string[]): Promise<void> {
  const expected = newestFirst(...names)
  expect(await answers(q), q).toEqual({
    newest: expected,
    count: expected.length,
    unpinned: expected,
    mostClicked: expected,
  })
}

describe('a search of one or two characters among many links', () => {
  it('finds the term wherever it stands, in any ASCII case, as LIKE does', async () => {
    const statements = await statementsOf(/links_fts_terms|links"?\."?search_lower/, () =>
      expectFinds('qu', ['endOfTitle', 'slugOfTwo', 'upperCase', 'inUrl']),
    )
    const texts = statements.map((statement) => statement.text)
    if (t.database.engine === 'sqlite') {
      // SQLite asks the trigram index's vocabulary for the trigrams that begin with the term.
      expect(texts.filter((text) => /links_fts_terms/.test(text))).toHaveLength(1)
    } else {
      // PostgreSQL reads the term's links from its pairs index: no link is tested with LIKE.
      expect(texts.length).toBeGreaterThan(0)
      expect(
        texts.filter((text) => !/link_search_pairs\(links\.search_lower\)/.test(text)),
      ).toEqual([])
    }
    await expectFinds('QU', ['endOfTitle', 'slugOfTwo', 'upperCase', 'inUrl'])
    await expectFinds('#', ['sign'])
    await expectFinds('東京', ['caseless'])
    await expectFinds('é', ['accent'])
    await expectFinds('fé', ['accent'])
    await expectFinds('zz', [])
  })

  it('reads a term in most links newest first, not every match from an index', async () => {
    // "er" is in every filler's address ("filler"): the page is the newest 50, found by testing
    // the newest links one by one (SQLite's walk, PostgreSQL's owners' page with LIKE). A page of
    // one common character is walked before the vocabulary would be asked.
    const letter = await sqliteReadsDuring(() => get('/api/links?q=E&limit=50'))
    expect(letter.filter((text) => /links_fts_terms/.test(text))).toEqual([])
    const statements = await statementsOf(/link_search_pairs|links_fts_terms/, async () => {
      const newest = await get<{ items: { id: string }[] }>('/api/links?limit=50')
      for (const q of ['eR', 'E']) {
        const page = await get<{ items: { id: string }[] }>(`/api/links?q=${q}&limit=50`)
        expect(
          page.items.map((item) => item.id),
          q,
        ).toEqual(newest.items.map((item) => item.id))
      }
    })
    expect(statements.filter((statement) => / match |@>/.test(statement.text))).toEqual([])
  })

  it('keeps each engine’s case of the Kelvin sign: SQLite’s LIKE does not fold it', async () => {
    // The trigram index folds the Kelvin sign to "k", so SQLite's index holds "nk" for it; a short
    // term's search is LIKE's, which does not. PostgreSQL's lower() folds it.
    await expectFinds('nk', t.database.engine === 'sqlite' ? [] : ['kelvin'])
  })

  it('lists the pinned links apart, for a term of two characters and of more', async () => {
    const pin = (method: 'PUT' | 'DELETE') =>
      t.app.inject({ method, url: `/api/links/${ids.inUrl}/pin`, headers: bearer(person.token) })
    expect((await pin('PUT')).statusCode).toBe(204)
    try {
      for (const [q, names] of [
        ['qu', ['endOfTitle', 'slugOfTwo', 'upperCase']],
        ['aqu', ['endOfTitle']],
      ] as const) {
        expect(await pages(q, '&pinned=false'), q).toEqual(newestFirst(...names))
        expect(await pages(q, '&pinned=true'), q).toEqual([ids.inUrl])
      }
    } finally {
      expect((await pin('DELETE')).statusCode).toBe(204)
    }
  })

  it('follows a link’s new title and its deletion', async () => {
    const renamed = await t.app.inject({
      method: 'PATCH',
      url: `/api/links/${ids.spaced}`,
      headers: bearer(person.token),
      payload: { title: 'Q u, now Qu' },
    })
    expect(renamed.statusCode, renamed.body).toBe(200)
    await expectFinds('qu', ['endOfTitle', 'slugOfTwo', 'upperCase', 'inUrl', 'spaced'])
    const deleted = await t.app.inject({
      method: 'DELETE',
      url: `/api/links/${ids.endOfTitle}`,
      headers: bearer(person.token),
    })
    expect(deleted.statusCode).toBe(204)
    await expectFinds('qu', ['slugOfTwo', 'upperCase', 'inUrl', 'spaced'])
  })

  it('reads a rare term of one character from the index, wherever it stands', async () => {
    // "u" ends a slug and a title renamed above, and stands in a word and an address; "v" is a
    // slug of one character, ends the title and the address of "Zqv" and stands in two addresses.
    const u = ['slugOfTwo', 'upperCase', 'inUrl', 'spaced']
    const reads = await sqliteReadsDuring(async () => {
      await expectFinds('u', u)
      await expectFinds('U', u)
      await expectFinds('v', ['kelvin', 'sign', 'slugOfOne', 'zqv'])
    })
    await expectFinds('東', ['caseless'])
    await expectFinds('w', ['slugOfTwo', 'inUrl', 'spaced', 'zqw'])
    if (t.database.engine === 'postgres') return
    expect(reads.some((text) => /links_fts_terms/.test(text))).toBe(true)
    expect(reads.some((text) => / match /.test(text))).toBe(true)
  })

  it('tests each link for a term that begins too many trigrams to be looked up', async () => {
    const reads = await sqliteReadsDuring(() =>
      expectFinds(
        'zq',
        [...AFTER_ZQ].map((character) => `zq${character}`),
      ),
    )
    if (t.database.engine === 'postgres') return
    expect(reads.some((text) => / like /.test(text))).toBe(true)
    expect(reads.filter((text) => / match /.test(text))).toEqual([])
  })
})
