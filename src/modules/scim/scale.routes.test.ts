/**
 * SCIM at 10,000 provisioned users (issue 29; Okta's own conformance test asserts every answer
 * under 600 ms): the lookups Okta and Entra make before each create, import pages from the first
 * to the last, `count=0`, a filter counted and paged in SQL and one evaluated in memory. Each is
 * measured five times in-process (app.inject, no network) and its median asserted under 600 ms
 * (the in-memory filter: see IN_MEMORY_LIMIT_MS); the figures are printed, since the machine the
 * suite runs on may be busy.
 */
import type { Insertable } from 'kysely'
import { beforeAll, describe, expect, it } from 'vitest'
import type { NewUserRow, ScimUsersTable } from '../../db/schema.js'
import { newId, newUserKey } from '../../lib/ids.js'
import { useTestApp } from '../../../test/helpers/app.js'
import { scimClient, type ScimClient } from '../../../test/helpers/scim.js'

const t = useTestApp({ env: { RATE_LIMIT_GENERAL: '0', SCIM_RATE_LIMIT: '100000' } })
const USERS = 10_000
const BATCH = 500
const LIMIT_MS = 600
/**
 * A filter SQL does not take (name parts, displayName, value paths) is evaluated in memory over
 * every account, in batches: linear in the accounts. No identity provider sends one in its
 * provisioning flow. Its figure is printed; the bound only catches a pathological regression
 * (say, a quadratic scan): measured 523–579 ms alone at load ≈20 on 2 cores, 2.5 s on
 * PostgreSQL while other test files ran beside it.
 */
const IN_MEMORY_LIMIT_MS = 10_000
let client: ScimClient

/** 10,000 accounts as SCIM provisioning leaves them: a users row and its scim_users row. */
async function provisionMany(): Promise<void> {
  const start = Date.parse('2026-01-01T00:00:00.000Z')
  for (let first = 0; first < USERS; first += BATCH) {
    const users: NewUserRow[] = []
    const scim: Array<Insertable<ScimUsersTable>> = []
    for (let i = first; i < Math.min(USERS, first + BATCH); i++) {
      const id = newId()
      const at = new Date(start + i * 1000).toISOString()
      const email = `scale-${String(i).padStart(5, '0')}@example.com`
      users.push({
        id,
        email,
        name: `Scale Person ${i}`,
        user_key: newUserKey(),
        password_hash: null,
        is_admin: false,
        disabled: i % 10 === 0,
        language: 'en',
        theme: 'auto',
        ai_suggestions_enabled: true,
        created_at: at,
        updated_at: at,
      })
      scim.push({
        user_id: id,
        user_name: email,
        user_name_lower: email,
        external_id: `00u${i}`,
        given_name: 'Scale',
        family_name: `Person${i}`,
        employee_number: String(i),
        department: i % 2 === 0 ? 'Even' : 'Odd',
        manager_id: null,
      })
    }
    await t.deps.db.transaction().execute(async (tx) => {
      await tx.insertInto('users').values(users).execute()
      await tx.insertInto('scim_users').values(scim).execute()
    })
  }
}

async function median(path: string, check: (body: Record<string, unknown>) => void): Promise<number> {
  const times: number[] = []
  for (let i = 0; i < 5; i++) {
    const started = performance.now()
    const response = await client.request('GET', path)
    times.push(performance.now() - started)
    expect(response.statusCode, path).toBe(200)
    check(response.json())
  }
  return times.sort((a, b) => a - b)[2]!
}

beforeAll(async () => {
  client = await scimClient(t)
  const started = performance.now()
  await provisionMany()
  console.log(`SCIM scale: ${USERS} users inserted in ${Math.round(performance.now() - started)} ms`)
}, 300_000)

describe(`SCIM with ${USERS} users`, () => {
  it(`answers each request an identity provider makes under ${LIMIT_MS} ms (median of five)`, async () => {
    const filter = (text: string) => encodeURIComponent(text)
    const someone = (await t.deps.db.selectFrom('users').select('id').where('email', '=', 'scale-05000@example.com').executeTakeFirstOrThrow()).id
    const total = (n: number) => (body: Record<string, unknown>) => expect(body.totalResults).toBe(n)
    const cases: Array<[string, string, (body: Record<string, unknown>) => void]> = [
      ['userName eq (Okta: user exists?)', `/Users?filter=${filter('userName eq "SCALE-04242@example.com"')}&startIndex=1&count=100`, total(1)],
      ['externalId eq', `/Users?filter=${filter('externalId eq "00u7777"')}`, total(1)],
      ['first page of 100, no filter', '/Users?startIndex=1&count=100', (b) => expect(b.itemsPerPage).toBe(100)],
      ['last page of 100, no filter', `/Users?startIndex=${USERS - 99}&count=100`, (b) => expect(b.itemsPerPage).toBe(100)],
      ['count=0', '/Users?count=0', (b) => expect(b.totalResults).toBeGreaterThanOrEqual(USERS)],
      ['userName sw, paged in SQL', `/Users?filter=${filter('userName sw "scale-0"')}&startIndex=901&count=100`, total(10_000)],
      // Disabled: every tenth; created after the first hour: i > 3600 → 3610, 3620, … 9990.
      [
        'active eq false and meta.created gt, in SQL',
        `/Users?filter=${filter('active eq false and meta.created gt "2026-01-01T01:00:00Z"')}&count=100`,
        total(639),
      ],
      ['name.familyName co, in memory', `/Users?filter=${filter('name.familyName co "person999"')}&count=100`, total(11)],
      ['GET /Users/{id}', `/Users/${someone}`, (b) => expect(b.userName).toBe('scale-05000@example.com')],
    ]
    const figures: string[] = []
    for (const [name, path, check] of cases) {
      const ms = await median(path, check)
      figures.push(`${name}: ${ms.toFixed(1)} ms`)
      expect(ms, name).toBeLessThan(name.endsWith('in memory') ? IN_MEMORY_LIMIT_MS : LIMIT_MS)
    }
    console.log(`SCIM scale (${t.deps.config.database.kind}, ${USERS} users, median of 5, in-process):\n  ${figures.join('\n  ')}`)
  }, 300_000)
})
