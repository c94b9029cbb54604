/**
 * The administrator's copyable reset link (POST /api/admin/users/{id}/password-reset/link)
 * under concurrent requests: a burst of creations (each its own link and audit event; one TOTP
 * code proves one of them only), concurrent uses of one link and of several links of one account —
 * exactly one use sets the password, the others get RESET_LINK_INVALID (never a 500), and no link
 * of the burst works afterwards.
 */
import { describe, expect, it } from 'vitest'
import { sha256Hex } from '../../lib/crypto.js'
import { useTestApp } from '../../../test/helpers/app.js'
import {
  bearer,
  createSignedInUser,
  createUser,
  DEFAULT_PASSWORD,
  enableMfa,
  login,
  type SignedIn,
} from '../../../test/helpers/factories.js'
import { totpCode } from '../../../test/helpers/rfc6238.js'

const t = useTestApp({ env: { RATE_LIMIT_GENERAL: '0' } })

let ipCounter = 0
/**
 * A fresh client address per use, so the per-IP limit of the public routes does not decide a race.
 */
const freshIp = () => `203.0.113.${++ipCounter % 250}`

const createLink = (admin: SignedIn, userId: string, proof: Record<string, unknown>) =>
  t.app.inject({
    method: 'POST',
    url: `/api/admin/users/${userId}/password-reset/link`,
    headers: bearer(admin.token),
    payload: proof,
  })
const complete = (token: string, newPassword: string) =>
  t.app.inject({
    method: 'POST',
    url: '/api/auth/password-reset/complete',
    payload: { token, new_password: newPassword },
    remoteAddress: freshIp(),
  })
const inspect = (token: string) =>
  t.app.inject({
    method: 'POST',
    url: '/api/auth/password-reset/inspect',
    payload: { token },
    remoteAddress: freshIp(),
  })
const tokenOf = (url: string) => new URL(url).searchParams.get('token')!

const auditCount = async (userId: string, action: string) =>
  (
    await t.deps.db
      .selectFrom('audit_events')
      .select('id')
      .where('action', '=', action)
      .where('target_id', '=', userId)
      .execute()
  ).length
const linkRows = (userId: string) =>
  t.deps.db
    .selectFrom('password_resets')
    .select(['token_hash', 'via', 'used_at'])
    .where('user_id', '=', userId)
    .execute()

/**
 * Fires `count` uses of the given links at once (round robin), each with its own password; returns
 * who won.
 */
async function raceUses(
  email: string,
  tokens: string[],
  count: number,
): Promise<{ statuses: number[]; winner: string }> {
  const passwords = Array.from(
    { length: count },
    (_, i) => `racing passphrase number ${i} of ${count}`,
  )
  const results = await Promise.all(
    passwords.map((password, i) => complete(tokens[i % tokens.length]!, password)),
  )
  const statuses = results.map((r) => r.statusCode)
  for (const result of results) {
    if (result.statusCode !== 200)
      expect(result.json().reason, result.body).toBe('RESET_LINK_INVALID')
  }
  const index = statuses.indexOf(200)
  expect(index, JSON.stringify(statuses)).toBeGreaterThanOrEqual(0)
  // The winner's password is the account's: it signs in.
  await login(t, email, passwords[index]!)
  return { statuses, winner: passwords[index]! }
}

describe("an administrator's copyable reset link under concurrent requests", () => {
  it('a burst of creations: each answers its own link (stored hashed, audited), up to the 10 per 15 minutes an administrator may make', async () => {
    const admin = await createSignedInUser(t, { isAdmin: true })
    const kim = await createUser(t)
    const BURST = 14
    const responses = await Promise.all(
      Array.from({ length: BURST }, () =>
        createLink(admin, kim.user.id, { current_password: DEFAULT_PASSWORD }),
      ),
    )
    const created = responses.filter((r) => r.statusCode === 201)
    expect(created).toHaveLength(10)
    for (const refused of responses.filter((r) => r.statusCode !== 201))
      expect(refused.json().reason, refused.body).toBe('RATE_LIMITED')
    const tokens = created.map((r) => tokenOf(r.json().url as string))
    expect(new Set(tokens).size).toBe(10)
    const rows = await linkRows(kim.user.id)
    expect(rows.map((row) => row.token_hash).sort()).toEqual(tokens.map(sha256Hex).sort())
    expect(rows.every((row) => row.via === 'admin_link' && row.used_at === null)).toBe(true)
    expect(await auditCount(kim.user.id, 'user.password_reset_requested')).toBe(10)
  })

  it('one TOTP code proves one creation: of a burst with the same code exactly one link is made', async () => {
    const admin = await createSignedInUser(t, { isAdmin: true })
    const { secret } = await enableMfa(t, { token: admin.token, password: DEFAULT_PASSWORD })
    const lena = await createUser(t)
    const code = totpCode(secret, t.clock.now())
    const responses = await Promise.all(
      Array.from({ length: 6 }, () =>
        createLink(admin, lena.user.id, { current_password: DEFAULT_PASSWORD, code }),
      ),
    )
    const statuses = responses.map((r) => r.statusCode).sort()
    expect(statuses).toEqual([201, 400, 400, 400, 400, 400])
    for (const refused of responses.filter((r) => r.statusCode === 400))
      expect(refused.json().reason, refused.body).toBe('INVALID_CODE')
    expect(await linkRows(lena.user.id)).toHaveLength(1)
    expect(await auditCount(lena.user.id, 'user.password_reset_requested')).toBe(1)
  })

  it('concurrent uses of one link: exactly one sets the password; the link and its siblings are spent', async () => {
    const admin = await createSignedInUser(t, { isAdmin: true })
    for (let round = 0; round < 3; round++) {
      const mia = await createUser(t)
      const created = await Promise.all(
        [0, 1].map(() => createLink(admin, mia.user.id, { current_password: DEFAULT_PASSWORD })),
      )
      expect(created.map((r) => r.statusCode)).toEqual([201, 201])
      const [raced, sibling] = created.map((r) => tokenOf(r.json().url as string)) as [
        string,
        string,
      ]
      const { statuses } = await raceUses(mia.email, [raced], 10)
      expect(statuses.filter((status) => status === 200)).toHaveLength(1)
      expect(statuses.filter((status) => status === 400)).toHaveLength(9)
      expect(await auditCount(mia.user.id, 'user.password_reset')).toBe(1)
      for (const spent of [raced, sibling])
        expect((await inspect(spent)).json().reason).toBe('RESET_LINK_INVALID')
      // The old password no longer signs in.
      const old = await t.app.inject({
        method: 'POST',
        url: '/api/auth/login',
        payload: { email: mia.email, password: DEFAULT_PASSWORD },
      })
      expect(old.statusCode).toBe(401)
    }
  })

  it('concurrent uses of different links of one account (a burst of creations): exactly one sets the password', async () => {
    for (let round = 0; round < 3; round++) {
      // An administrator per round: each may make 10 links per 15 minutes.
      const admin = await createSignedInUser(t, { isAdmin: true })
      const noor = await createUser(t)
      const created = await Promise.all(
        Array.from({ length: 4 }, () =>
          createLink(admin, noor.user.id, { current_password: DEFAULT_PASSWORD }),
        ),
      )
      expect(
        created.map((r) => r.statusCode),
        `round ${round}`,
      ).toEqual([201, 201, 201, 201])
      const tokens = created.map((r) => tokenOf(r.json().url as string))
      const { statuses } = await raceUses(noor.email, tokens, 8)
      expect(
        statuses.filter((status) => status === 200),
        JSON.stringify(statuses),
      ).toHaveLength(1)
      expect(statuses.filter((status) => status === 400)).toHaveLength(7)
      expect(await auditCount(noor.user.id, 'user.password_reset')).toBe(1)
      for (const token of tokens)
        expect((await inspect(token)).json().reason).toBe('RESET_LINK_INVALID')
      expect((await linkRows(noor.user.id)).filter((row) => row.used_at !== null)).toHaveLength(1)
    }
  })
})
