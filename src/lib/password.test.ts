import { describe, expect, it } from 'vitest'
import { createPasswordHasher, createWorkLimiter } from './password-hash.js'
import { normalizePassword, passwordProblem } from './password-policy.js'

describe('password policy (docs/API.md#passwords)', () => {
  it('accepts 8 to 256 characters, counted as code points', () => {
    expect(passwordProblem('abcd efg', null)).toBeNull()
    expect(passwordProblem('abc defg'.slice(0, 7), null)).toMatch(/at least 8/)
    expect(passwordProblem('😀'.repeat(8), null)).toBeNull()
    expect(passwordProblem('x7'.repeat(128), null)).toBeNull()
    expect(passwordProblem('x7'.repeat(128) + 'y', null)).toMatch(/at most 256/)
  })

  it('rejects the most common breached passwords, ignoring case', () => {
    for (const common of [
      'password',
      'Password',
      '12345678',
      'iloveyou',
      'QWERTYUIOP',
      'trustno1',
    ]) {
      expect(passwordProblem(common, null)).toMatch(/too common/)
    }
  })

  it('rejects the account email', () => {
    expect(passwordProblem('Ada@Example.com', 'ada@example.com')).toMatch(/email/)
  })

  it('has no composition rules', () => {
    expect(passwordProblem('correct horse battery staple', null)).toBeNull()
  })

  it('normalises to NFKC', () => {
    expect(normalizePassword('ﬁancé')).toBe('fiancé')
    expect(normalizePassword('cafe\u0301')).toBe('caf\u00e9')
  })
})

describe('argon2id hashing', () => {
  const hasher = createPasswordHasher({ memoryCost: 1024, timeCost: 1, parallelism: 1 })

  it('produces salted argon2id hashes that verify', async () => {
    const a = await hasher.hash('a fine passphrase')
    const b = await hasher.hash('a fine passphrase')
    expect(a).toMatch(/^\$argon2id\$v=19\$m=1024,t=1,p=1\$/)
    expect(a).not.toBe(b)
    expect(await hasher.verify(a, 'a fine passphrase')).toBe(true)
    expect(await hasher.verify(a, 'a fine passphrasE')).toBe(false)
  })

  it('answers false, not an exception, for a stored value that is not a hash', async () => {
    expect(await hasher.verify('', 'x')).toBe(false)
    expect(await hasher.verify('plaintext', 'plaintext')).toBe(false)
  })

  it('uses the OWASP parameters by default', async () => {
    const production = createPasswordHasher({ memoryCost: 19456, timeCost: 2, parallelism: 1 })
    expect(await production.hash('x')).toMatch(/^\$argon2id\$v=19\$m=19456,t=2,p=1\$/)
  })
})

describe('bounded hashing work', () => {
  it("runs at most `concurrency` at once, queues strangers up to `queue` less the known clients' share, then refuses with 503 and Retry-After", async () => {
    const run = createWorkLimiter({ concurrency: 2, queue: 3 })
    let active = 0
    let peak = 0
    const job = () =>
      run(async () => {
        active++
        peak = Math.max(peak, active)
        await new Promise((resolve) => setTimeout(resolve, 20))
        active--
        return 'done'
      })
    const outcomes = await Promise.allSettled(Array.from({ length: 8 }, job))
    expect(peak).toBe(2)
    // 2 running + 2 waiting: of the 3 waiting places one (a quarter, at least one) is for known
    // clients.
    expect(outcomes.filter((o) => o.status === 'fulfilled')).toHaveLength(4)
    const refused = outcomes.find((o) => o.status === 'rejected') as PromiseRejectedResult
    expect(refused.reason).toMatchObject({
      reason: 'SERVICE_UNAVAILABLE',
      status: 503,
      retryAfter: 1,
    })
  })

  it('one client cannot take more than an eighth of the places once work has to wait', async () => {
    const run = createWorkLimiter({ concurrency: 1, queue: 15 }) // 16 places: 2 per client
    const slow = (client: string) =>
      run(() => new Promise((resolve) => setTimeout(resolve, 20)), { client })
    const flood = await Promise.allSettled(Array.from({ length: 10 }, () => slow('10.0.0.1')))
    expect(flood.filter((o) => o.status === 'fulfilled')).toHaveLength(2)
    const [other] = await Promise.allSettled([slow('10.0.0.2')])
    expect(other.status).toBe('fulfilled')
  })

  it('keeps a reserved share for known clients and serves them before waiting strangers', async () => {
    // 2 waiting places reserved; 9 places: 1 per client
    const run = createWorkLimiter({ concurrency: 1, queue: 8 })
    const order: string[] = []
    const job = (name: string, known: boolean) =>
      run(
        async () => {
          order.push(name)
          await new Promise((resolve) => setTimeout(resolve, 10))
        },
        { client: name, known },
      )
    // Strangers from 10 addresses: 1 runs, 6 wait (8 less the 2 reserved), 3 are refused.
    const strangers = Array.from({ length: 10 }, (_, i) => job(`stranger-${i}`, false))
    // Known clients still get in — into the reserved places — and run right after the running one.
    const known = [job('known-a', true), job('known-b', true)]
    // The reserved places are full now: a third known client is refused too (their share is
    // bounded).
    const third = job('known-c', true)
    const outcomes = await Promise.allSettled([...strangers, ...known, third])
    expect(outcomes.slice(0, 10).filter((o) => o.status === 'fulfilled')).toHaveLength(7)
    expect(outcomes.slice(10, 12).map((o) => o.status)).toEqual(['fulfilled', 'fulfilled'])
    expect(outcomes[12]!.status).toBe('rejected')
    expect(order.slice(0, 3)).toEqual(['stranger-0', 'known-a', 'known-b'])
  })

  it('known clients may use every waiting place, strangers never the reserved ones', async () => {
    const run = createWorkLimiter({ concurrency: 1, queue: 4 }) // 1 reserved
    const wait = (known: boolean, client: string) =>
      run(() => new Promise((resolve) => setTimeout(resolve, 10)), { client, known })
    const knownOnly = await Promise.allSettled(
      Array.from({ length: 6 }, (_, i) => wait(true, `k${i}`)),
    )
    expect(knownOnly.filter((o) => o.status === 'fulfilled')).toHaveLength(5)
    const strangersOnly = await Promise.allSettled(
      Array.from({ length: 6 }, (_, i) => wait(false, `s${i}`)),
    )
    expect(strangersOnly.filter((o) => o.status === 'fulfilled')).toHaveLength(4)
  })
})
