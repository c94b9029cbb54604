/**
 * First-run setup from a loopback address works as before; from anywhere else it
 * needs the one-time setup code that the service prints at start while no user exists (403
 * SETUP_CODE_REQUIRED without it or with a wrong one). "from the machine itself"
 * means a loopback peer, no TRUST_PROXY, and none of the proxy headers in common use — each one of
 * them alone makes the code necessary; the code goes to the terminal, never into the JSON log.
 */
import { describe, expect, it } from 'vitest'
import { announceSetupCode, setupCodeFor } from '../../src/modules/auth/setup-code.js'
import { useTestApp } from '../helpers/app.js'
import { expectReason } from '../helpers/expect.js'

const admin = {
  email: 'first@example.com',
  name: 'First Admin',
  password: 'a long and unusual passphrase',
}

describe('first-run setup code', () => {
  const t = useTestApp()
  const setup = (
    payload: Record<string, unknown>,
    remoteAddress: string,
    headers: Record<string, string> = {},
  ) => t.app.inject({ method: 'POST', url: '/api/auth/setup', payload, remoteAddress, headers })

  it('the service prints the setup code on the terminal at start while no user exists, and logs only where it is', async () => {
    let terminal = ''
    const before = t.logs.length
    await announceSetupCode(t.deps, { write: (text: string) => (terminal += text) })
    const code = setupCodeFor(t.deps)
    expect(code).toMatch(/^[A-Z0-9]{5}(-[A-Z0-9]{5}){3}$/)
    expect(terminal).toContain(code)
    // Only the announcement's own lines: the audit log's background checks may log meanwhile.
    const logged = t.logs.slice(before).filter((line) => line.includes('setup'))
    expect(logged).toHaveLength(1)
    expect(JSON.parse(logged[0]!)).toMatchObject({
      level: 30,
      msg: expect.stringContaining('setup code printed on the terminal'),
    })
    expect(t.logs.some((l) => l.includes(code) || l.includes(code.replaceAll('-', '')))).toBe(false)
  })

  it('setup from a non-loopback address needs the setup code: none or a wrong one is 403', async () => {
    const status = await t.app.inject({
      method: 'GET',
      url: '/api/auth/setup',
      remoteAddress: '203.0.113.7',
    })
    expect(status.json()).toEqual({ initialized: false, setup_code_required: true })
    expectReason(await setup(admin, '203.0.113.7'), 403, 'SETUP_CODE_REQUIRED')
    expectReason(
      await setup({ ...admin, setup_code: 'AAAAA-BBBBB-CCCCC-DDDDD' }, '203.0.113.7'),
      403,
      'SETUP_CODE_REQUIRED',
    )
    // A forged proxy header on a loopback peer is not "from this machine".
    expectReason(
      await setup(admin, '127.0.0.1', { 'x-forwarded-for': '127.0.0.1' }),
      403,
      'SETUP_CODE_REQUIRED',
    )
  })

  // What reverse proxies add (nginx's proxy_set_header lines, Apache's mod_proxy, Caddy, HAProxy,
  // RFC 7239, RFC 9110 §7.6.3).
  const PROXY_HEADERS: Record<string, string> = {
    'x-forwarded-for': '203.0.113.9',
    'x-forwarded-host': 'sb.example.com',
    'x-forwarded-proto': 'https',
    'x-forwarded-port': '443',
    'x-forwarded-server': 'proxy.internal',
    forwarded: 'for=203.0.113.9;proto=https',
    'x-real-ip': '203.0.113.9',
    via: '1.1 proxy.internal',
  }
  for (const [name, value] of Object.entries(PROXY_HEADERS)) {
    it(`a loopback peer with ${name} needs the setup code (it came through a proxy)`, async () => {
      const status = await t.app.inject({
        method: 'GET',
        url: '/api/auth/setup',
        remoteAddress: '127.0.0.1',
        headers: { [name]: value },
      })
      expect(status.json()).toEqual({ initialized: false, setup_code_required: true })
      expectReason(await setup(admin, '127.0.0.1', { [name]: value }), 403, 'SETUP_CODE_REQUIRED')
      expectReason(
        await setup(admin, '::1', { [name.toUpperCase()]: value }),
        403,
        'SETUP_CODE_REQUIRED',
      )
    })
  }

  it('nothing was set up by the refused attempts', async () => {
    expect((await t.app.inject({ method: 'GET', url: '/api/auth/setup' })).json().initialized).toBe(
      false,
    )
  })

  it('setup from a non-loopback address with the logged code succeeds (dashes and case do not matter)', async () => {
    const code = setupCodeFor(t.deps).replaceAll('-', '').toLowerCase()
    const response = await setup({ ...admin, setup_code: code }, '203.0.113.7')
    expect(response.statusCode).toBe(201)
    // Once a user exists the code is no use: 409 as before, and nothing more is logged at start.
    expectReason(
      await setup({ ...admin, email: 'second@example.com', setup_code: code }, '203.0.113.7'),
      409,
      'ALREADY_INITIALIZED',
    )
    const before = t.logs.length
    let terminal = ''
    await announceSetupCode(t.deps, { write: (text: string) => (terminal += text) })
    expect(terminal).toBe('')
    expect(t.logs.slice(before)).toHaveLength(0)
  })
})

describe('first-run setup from loopback', () => {
  const t = useTestApp()
  it('works without a code from 127.0.0.1 and ::1, as today', async () => {
    const status = await t.app.inject({
      method: 'GET',
      url: '/api/auth/setup',
      remoteAddress: '::1',
    })
    expect(status.json()).toEqual({ initialized: false, setup_code_required: false })
    expect(
      (
        await t.app.inject({
          method: 'POST',
          url: '/api/auth/setup',
          payload: admin,
          remoteAddress: '::1',
        })
      ).statusCode,
    ).toBe(201)
  })
})

describe('first-run setup from loopback with a proxy configured', () => {
  // nginx's plain proxy_pass adds no header at all: with TRUST_PROXY set, a loopback peer is the
  // proxy.
  for (const trustProxy of ['1', '127.0.0.1', 'loopback']) {
    describe(`TRUST_PROXY=${trustProxy}`, () => {
      const t = useTestApp({ env: { TRUST_PROXY: trustProxy } })
      it('needs the setup code even without any proxy header', async () => {
        const status = await t.app.inject({
          method: 'GET',
          url: '/api/auth/setup',
          remoteAddress: '127.0.0.1',
        })
        expect(status.json()).toEqual({ initialized: false, setup_code_required: true })
        expectReason(
          await t.app.inject({
            method: 'POST',
            url: '/api/auth/setup',
            payload: admin,
            remoteAddress: '127.0.0.1',
          }),
          403,
          'SETUP_CODE_REQUIRED',
        )
        const response = await t.app.inject({
          method: 'POST',
          url: '/api/auth/setup',
          payload: { ...admin, setup_code: setupCodeFor(t.deps) },
          remoteAddress: '127.0.0.1',
        })
        expect(response.statusCode).toBe(201)
      })
    })
  }
})
