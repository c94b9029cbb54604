/**
 * Issue #11 item 17: first-run setup from a loopback address works as before; from anywhere else it
 * needs the one-time setup code that the service logs at start while no user exists (403
 * SETUP_CODE_REQUIRED without it or with a wrong one). A forged X-Forwarded-For does not pass for
 * loopback.
 */
import { describe, expect, it } from 'vitest'
import { announceSetupCode, setupCodeFor } from '../../src/modules/auth/setup-code.js'
import { useTestApp } from '../helpers/app.js'
import { expectReason } from '../helpers/expect.js'

const admin = { email: 'first@example.com', name: 'First Admin', password: 'a long and unusual passphrase' }

describe('first-run setup code', () => {
  const t = useTestApp()
  const setup = (payload: Record<string, unknown>, remoteAddress: string, headers: Record<string, string> = {}) =>
    t.app.inject({ method: 'POST', url: '/api/auth/setup', payload, remoteAddress, headers })

  it('the service logs the setup code at start while no user exists', async () => {
    await announceSetupCode(t.deps)
    const line = t.logs.find((l) => l.includes('setup_code'))
    expect(line).toBeDefined()
    expect(JSON.parse(line!).setup_code).toBe(setupCodeFor(t.deps))
    expect(setupCodeFor(t.deps)).toMatch(/^[A-Z0-9]{5}(-[A-Z0-9]{5}){3}$/)
  })

  it('setup from a non-loopback address needs the setup code: none or a wrong one is 403', async () => {
    const status = await t.app.inject({ method: 'GET', url: '/api/auth/setup', remoteAddress: '203.0.113.7' })
    expect(status.json()).toEqual({ initialized: false, setup_code_required: true })
    expectReason(await setup(admin, '203.0.113.7'), 403, 'SETUP_CODE_REQUIRED')
    expectReason(await setup({ ...admin, setup_code: 'AAAAA-BBBBB-CCCCC-DDDDD' }, '203.0.113.7'), 403, 'SETUP_CODE_REQUIRED')
    // A forged proxy header on a loopback peer is not "from this machine".
    expectReason(await setup(admin, '127.0.0.1', { 'x-forwarded-for': '127.0.0.1' }), 403, 'SETUP_CODE_REQUIRED')
    expect((await t.app.inject({ method: 'GET', url: '/api/auth/setup' })).json().initialized).toBe(false)
  })

  it('setup from a non-loopback address with the logged code succeeds (dashes and case do not matter)', async () => {
    const code = setupCodeFor(t.deps).replaceAll('-', '').toLowerCase()
    const response = await setup({ ...admin, setup_code: code }, '203.0.113.7')
    expect(response.statusCode).toBe(201)
    // Once a user exists the code is no use: 409 as before, and nothing more is logged at start.
    expectReason(await setup({ ...admin, email: 'second@example.com', setup_code: code }, '203.0.113.7'), 409, 'ALREADY_INITIALIZED')
    const before = t.logs.length
    await announceSetupCode(t.deps)
    expect(t.logs.slice(before).some((l) => l.includes('setup_code'))).toBe(false)
  })
})

describe('first-run setup from loopback', () => {
  const t = useTestApp()
  it('works without a code from 127.0.0.1 and ::1, as today', async () => {
    const status = await t.app.inject({ method: 'GET', url: '/api/auth/setup', remoteAddress: '::1' })
    expect(status.json()).toEqual({ initialized: false, setup_code_required: false })
    expect((await t.app.inject({ method: 'POST', url: '/api/auth/setup', payload: admin, remoteAddress: '::1' })).statusCode).toBe(201)
  })
})
