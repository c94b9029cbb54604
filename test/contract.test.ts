/**
 * The contract check itself (test/helpers/contract.ts), on the document the app serves: it must
 * catch each kind of drift, and name the operation, the status and the problem.
 */
import { describe, expect, it } from 'vitest'
import { useTestApp } from './helpers/app.js'
import { Contract, ContractViolation, type Exchange } from './helpers/contract.js'
import { createSignedInUser } from './helpers/factories.js'

const t = useTestApp()

const json = { 'content-type': 'application/json; charset=utf-8' }
const user = { id: '0190f3b4-0000-7000-8000-000000000000' }

function exchange(overrides: Partial<Exchange>): Exchange {
  return {
    method: 'GET',
    url: '/api/users/me',
    requestHeaders: {},
    requestBody: undefined,
    status: 200,
    responseHeaders: json,
    responseBody: '{}',
    ...overrides,
  }
}

function violationOf(contract: Contract, e: Exchange): string {
  try {
    contract.check(e)
  } catch (error) {
    expect(error).toBeInstanceOf(ContractViolation)
    return (error as Error).message
  }
  throw new Error('no violation found')
}

describe('the contract check', () => {
  it('refuses an undocumented status, naming the operation', () => {
    const contract = new Contract(t.app.swagger())
    expect(violationOf(contract, exchange({ status: 418 }))).toMatch(
      /^getCurrentUser \(GET \/api\/users\/me\) answered 418, a status the document does not list/,
    )
  })

  it('refuses a body its schema refuses, saying where', () => {
    const contract = new Contract(t.app.swagger())
    const message = violationOf(
      contract,
      exchange({ responseBody: JSON.stringify({ ...user, unexpected: true }) }),
    )
    expect(message).toMatch(
      /getCurrentUser \(GET \/api\/users\/me\) answered 200 with a body the schema refuses/,
    )
    const error = violationOf(
      contract,
      exchange({ status: 401, responseBody: JSON.stringify({ error: 'Unauthorized', code: 401 }) }),
    )
    expect(error).toMatch(
      /answered 401 with a body the schema refuses: .*must have required property 'message'/,
    )
  })

  it('refuses a media type the operation does not declare, and a body where it declares none', () => {
    const contract = new Contract(t.app.swagger())
    expect(
      violationOf(
        contract,
        exchange({ url: '/api/metrics', responseHeaders: json, responseBody: '"x"' }),
      ),
    ).toMatch(
      /getMetrics .* answered 200 with Content-Type application\/json; charset=utf-8; the document declares text\/plain; version=0\.0\.4/,
    )
    expect(() =>
      contract.check(
        exchange({
          url: '/api/metrics',
          responseHeaders: { 'content-type': 'text/plain; version=0.0.4; charset=utf-8' },
          responseBody: '# HELP',
        }),
      ),
    ).not.toThrow()
    expect(
      violationOf(
        contract,
        exchange({ method: 'DELETE', url: '/api/tokens/x', status: 204, responseBody: '{}' }),
      ),
    ).toMatch(/revokeApiToken .* answered 204 with a body where the document declares no content/)
  })

  it('refuses a 2xx to a request the document refuses, but not a 4xx', async () => {
    const contract = new Contract(t.app.swagger())
    const signedIn = await createSignedInUser(t)
    const me = (
      await t.app.inject({
        method: 'GET',
        url: '/api/users/me',
        headers: { authorization: `Bearer ${signedIn.token}` },
      })
    ).body
    const tooLong = exchange({
      method: 'PATCH',
      requestHeaders: json,
      requestBody: JSON.stringify({ name: 'x'.repeat(101) }),
      responseBody: me,
    })
    expect(violationOf(contract, tooLong)).toMatch(
      /updateCurrentUser \(PATCH \/api\/users\/me\) answered 200 to a request the document refuses: the body: \/name must NOT have more than 100 characters/,
    )
    const refusal = JSON.stringify({
      error: 'Bad Request',
      message: 'The request is not valid.',
      code: 400,
      reason: 'VALIDATION_FAILED',
      details: [{ field: 'name', message: 'too long', code: 'too_long' }],
    })
    expect(() => contract.check({ ...tooLong, status: 400, responseBody: refusal })).not.toThrow()
    expect(
      violationOf(
        contract,
        exchange({
          url: '/api/tokens?limit=1000',
          status: 200,
          responseBody: '{"items":[],"next_cursor":null}',
        }),
      ),
    ).toMatch(/listApiTokens .* to a request the document refuses: the query parameter limit/)
    expect(
      violationOf(
        contract,
        exchange({
          method: 'POST',
          url: '/api/billing/webhook',
          requestHeaders: json,
          requestBody: '{}',
          responseBody: '{"received":true}',
        }),
      ),
    ).toMatch(/receiveStripeWebhook .* the header parameter stripe-signature is required/)
  })

  it('requires the envelope for answers outside the documented operations', () => {
    const contract = new Contract(t.app.swagger())
    expect(
      violationOf(
        contract,
        exchange({ url: '/api/nothing-here', status: 404, responseBody: '{"oops":1}' }),
      ),
    ).toMatch(
      /GET \/api\/nothing-here \(no documented operation\) answered 404 with a body the schema refuses/,
    )
  })

  it('is applied to every app.inject of the suite', async () => {
    // The wrapper validates this very response; an undocumented answer would reject the call.
    const response = await t.app.inject({ method: 'GET', url: '/api/health' })
    expect(response.statusCode).toBe(200)
    expect(t.app.inject.name).toBe('contractCheckedInject')
  })
})
