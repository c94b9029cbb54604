/**
 * SCIM at 10,000 provisioned users (every SCIM answer under 600 ms, as Okta's own
 * conformance test asserts): the lookups Okta and Entra make before each create, import pages
 * from the first to the last, `count=0`, and filters on every kind of attribute (all in SQL: name
 * parts, displayName, value paths, the enterprise extension). Each request is made five times
 * in-process (app.inject, no network) and every one of the five answers is held under 600 ms; the
 * figures (slowest and median) are printed with the machine's load, since the machine the suite
 * runs on may be busy.
 */
import { loadavg } from 'node:os'
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
const RUNS = 5
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
        family_name_lower: `person${i}`,
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

/** The times of RUNS identical requests, slowest first; each answer is checked. */
async function timings(
  path: string,
  check: (body: Record<string, unknown>) => void,
): Promise<number[]> {
  const times: number[] = []
  for (let i = 0; i < RUNS; i++) {
    const started = performance.now()
    const response = await client.request('GET', path)
    times.push(performance.now() - started)
    expect(response.statusCode, path).toBe(200)
    check(response.json())
  }
  return times.sort((a, b) => b - a)
}

beforeAll(async () => {
  client = await scimClient(t)
  const started = performance.now()
  await provisionMany()
  console.log(
    `SCIM scale: ${USERS} users inserted in ${Math.round(performance.now() - started)} ms`,
  )
}, 300_000)

describe(`SCIM with ${USERS} users`, () => {
  it(`answers each request an identity provider makes under ${LIMIT_MS} ms (every one of ${RUNS} answers)`, async () => {
    const filter = (text: string) => encodeURIComponent(text)
    const someone = (
      await t.deps.db
        .selectFrom('users')
        .select('id')
        .where('email', '=', 'scale-05000@example.com')
        .executeTakeFirstOrThrow()
    ).id
    const total = (n: number) => (body: Record<string, unknown>) =>
      expect(body.totalResults).toBe(n)
    const cases: Array<[string, string, (body: Record<string, unknown>) => void]> = [
      [
        'userName eq (Okta: user exists?)',
        `/Users?filter=${filter('userName eq "SCALE-04242@example.com"')}&startIndex=1&count=100`,
        total(1),
      ],
      ['externalId eq', `/Users?filter=${filter('externalId eq "00u7777"')}`, total(1)],
      [
        'first page of 100, no filter',
        '/Users?startIndex=1&count=100',
        (b) => expect(b.itemsPerPage).toBe(100),
      ],
      [
        'last page of 100, no filter',
        `/Users?startIndex=${USERS - 99}&count=100`,
        (b) => expect(b.itemsPerPage).toBe(100),
      ],
      ['count=0', '/Users?count=0', (b) => expect(b.totalResults).toBeGreaterThanOrEqual(USERS)],
      [
        'userName sw, paged in SQL',
        `/Users?filter=${filter('userName sw "scale-0"')}&startIndex=901&count=100`,
        total(10_000),
      ],
      // Disabled: every tenth; created after the first hour: i > 3600 → 3610, 3620, … 9990.
      [
        'active eq false and meta.created gt, in SQL',
        `/Users?filter=${filter('active eq false and meta.created gt "2026-01-01T01:00:00Z"')}&count=100`,
        total(639),
      ],
      // Formerly evaluated in memory over every account (579–632 ms under load): now SQL.
      [
        'name.familyName co',
        `/Users?filter=${filter('name.familyName co "person999"')}&count=100`,
        total(11),
      ],
      [
        'name.givenName eq, count=0',
        `/Users?filter=${filter('name.givenName eq "SCALE"')}&count=0`,
        total(USERS),
      ],
      [
        'displayName sw, last page',
        `/Users?filter=${filter('displayName sw "scale person 9"')}&startIndex=1012&count=100`,
        total(1111),
      ],
      ['name.formatted ew', `/Users?filter=${filter('name.formatted ew " 4242"')}`, total(1)],
      [
        'emails[type eq "work"].value eq (Entra)',
        `/Users?filter=${filter('emails[type eq "work"].value eq "Scale-03333@example.com"')}`,
        total(1),
      ],
      [
        'emails[type eq "work" and value co …]',
        `/Users?filter=${filter('emails[type eq "work" and value co "-0777"]')}`,
        total(10),
      ],
      [
        'enterprise department eq and not employeeNumber sw',
        `/Users?filter=${filter('urn:ietf:params:scim:schemas:extension:enterprise:2.0:User:department eq "even" and not (urn:ietf:params:scim:schemas:extension:enterprise:2.0:User:employeeNumber sw "1")')}&count=100`,
        total(4445),
      ],
      [
        'userName ge and lt, paged',
        `/Users?filter=${filter('userName ge "scale-09000@example.com" and userName lt "scale-1"')}&startIndex=901&count=100`,
        total(1000),
      ],
      [
        'GET /Users/{id}',
        `/Users/${someone}`,
        (b) => expect(b.userName).toBe('scale-05000@example.com'),
      ],
    ]
    const figures: string[] = []
    const slowest: Array<[string, number]> = []
    for (const [name, path, check] of cases) {
      const times = await timings(path, check)
      figures.push(
        `${name}: slowest ${times[0]!.toFixed(1)} ms, median ${times[Math.floor(RUNS / 2)]!.toFixed(1)} ms`,
      )
      slowest.push([name, times[0]!])
    }
    const load = loadavg()
      .map((n) => n.toFixed(2))
      .join(' ')
    console.log(
      `SCIM scale (${t.deps.config.database.kind}, ${USERS} users, ${RUNS} runs each, in-process, load ${load}):\n  ${figures.join('\n  ')}`,
    )
    // Every answer, not a median: the requirement (and Okta's test) bound each one.
    for (const [name, ms] of slowest) expect(ms, name).toBeLessThan(LIMIT_MS)
  }, 300_000)
})
