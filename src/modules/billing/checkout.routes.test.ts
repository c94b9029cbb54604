/**
 * Plans and Stripe Checkout (docs/API.md#billing) against a local stand-in speaking Stripe's wire
 * format.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { startPeerInstance, useTestApp, type PeerInstance } from '../../../test/helpers/app.js'
import { expectReason } from '../../../test/helpers/expect.js'
import { bearer, createSignedInUser, type SignedIn } from '../../../test/helpers/factories.js'
import { createOrgWithRoles, type OrgWithRoles } from '../../../test/helpers/organizations.js'
import { scanResponsesForSecrets } from '../../../test/helpers/secret-scan.js'
import {
  billingEnv,
  startStripeStandIn,
  TEST_STRIPE_SECRET_KEY,
  TEST_STRIPE_WEBHOOK_SECRET,
} from '../../../test/helpers/stripe-stand-in.js'

const stripe = await startStripeStandIn(TEST_STRIPE_SECRET_KEY)
const t = useTestApp({ env: { ...billingEnv(stripe), RATE_LIMIT_GENERAL: '0' } })
scanResponsesForSecrets(t, [TEST_STRIPE_SECRET_KEY, TEST_STRIPE_WEBHOOK_SECRET])
afterAll(async () => {
  await stripe.close()
})

const checkout = (user: SignedIn, payload: Record<string, unknown>, app = t.app) =>
  app.inject({
    method: 'POST',
    url: '/api/billing/checkout-session',
    headers: bearer(user.token),
    payload,
  })

const requestsTo = (path: string) => stripe.requests.filter((request) => request.path === path)

describe('GET /api/billing/plans', () => {
  it('lists the configured plans and their intervals, in the configured order, to any signed-in user', async () => {
    const user = await createSignedInUser(t)
    const response = await t.app.inject({
      method: 'GET',
      url: '/api/billing/plans',
      headers: bearer(user.token),
    })
    expect(response.statusCode).toBe(200)
    expect(response.json()).toEqual({
      items: [
        { id: 'pro', name: 'Pro', intervals: ['month', 'year'] },
        { id: 'team', name: 'Team', intervals: ['year'] },
      ],
      next_cursor: null,
    })
    const first = (
      await t.app.inject({
        method: 'GET',
        url: '/api/billing/plans?limit=1',
        headers: bearer(user.token),
      })
    ).json()
    expect(first.items.map((p: { id: string }) => p.id)).toEqual(['pro'])
    const second = (
      await t.app.inject({
        method: 'GET',
        url: `/api/billing/plans?limit=1&cursor=${first.next_cursor}`,
        headers: bearer(user.token),
      })
    ).json()
    expect(second).toEqual({
      items: [{ id: 'team', name: 'Team', intervals: ['year'] }],
      next_cursor: null,
    })
    const gone = Buffer.from(JSON.stringify(['discontinued', ''])).toString('base64url')
    expect(
      (
        await t.app.inject({
          method: 'GET',
          url: `/api/billing/plans?cursor=${gone}`,
          headers: bearer(user.token),
        })
      ).json(),
    ).toEqual({
      items: [],
      next_cursor: null,
    })
    expect((await t.app.inject({ method: 'GET', url: '/api/billing/plans' })).statusCode).toBe(401)
  })
})

describe('POST /api/billing/checkout-session', () => {
  let org: OrgWithRoles
  beforeAll(async () => {
    org = await createOrgWithRoles(t)
  })

  it('is for owners: outsiders get 404, members and admins 403, and Stripe hears nothing', async () => {
    const before = stripe.requests.length
    expectReason(
      await checkout(org.outsider, { organization_id: org.id, plan: 'pro', interval: 'month' }),
      404,
      'NOT_FOUND',
    )
    expectReason(
      await checkout(org.outsider, {
        organization_id: 'no-such-organization',
        plan: 'pro',
        interval: 'month',
      }),
      404,
      'NOT_FOUND',
    )
    expectReason(
      await checkout(org.member, { organization_id: org.id, plan: 'pro', interval: 'month' }),
      403,
      'FORBIDDEN',
    )
    expectReason(
      await checkout(org.admin, { organization_id: org.id, plan: 'pro', interval: 'month' }),
      403,
      'FORBIDDEN',
    )
    expect(stripe.requests.length).toBe(before)
  })

  it("creates the organization's customer, then a subscription Checkout with the plan's price: 201 { id, url, expires_at }", async () => {
    const response = await checkout(org.owner, {
      organization_id: org.id,
      plan: 'pro',
      interval: 'year',
    })
    expect(response.statusCode).toBe(201)
    const session = response.json()
    expect(session).toEqual({
      id: expect.stringMatching(/^cs_test_/),
      url: expect.stringMatching(/^https:\/\/checkout\.stripe\.test\//),
      expires_at: expect.any(String),
    })
    expect(new Date(session.expires_at).toISOString()).toBe(session.expires_at)

    const [customer] = requestsTo('/v1/customers')
    expect(customer).toMatchObject({
      authorization: `Bearer ${TEST_STRIPE_SECRET_KEY}`,
      idempotencyKey: `switchboard-customer-${org.id}`,
      form: { 'metadata[organization_id]': org.id },
    })
    const customerId = [...stripe.customers.keys()][0]!
    const created = requestsTo('/v1/checkout/sessions').at(-1)!
    expect(created.authorization).toBe(`Bearer ${TEST_STRIPE_SECRET_KEY}`)
    expect(created.form).toEqual({
      mode: 'subscription',
      customer: customerId,
      'line_items[0][price]': 'price_pro_year',
      'line_items[0][quantity]': '1',
      success_url: 'http://switchboard.test/billing/success?session_id={CHECKOUT_SESSION_ID}',
      cancel_url: 'http://switchboard.test/billing/cancel',
      client_reference_id: org.id,
      'metadata[organization_id]': org.id,
      'metadata[plan]': 'pro',
      'subscription_data[metadata][organization_id]': org.id,
      'subscription_data[metadata][plan]': 'pro',
    })
    const stored = await t.deps.db
      .selectFrom('organizations')
      .select('stripe_customer_id')
      .where('id', '=', org.id)
      .executeTakeFirstOrThrow()
    expect(stored.stripe_customer_id).toBe(customerId)
    const audit = await t.deps.db
      .selectFrom('audit_events')
      .select(['actor_id', 'metadata'])
      .where('action', '=', 'billing.checkout_create')
      .where('target_id', '=', org.id)
      .execute()
    expect(audit).toHaveLength(1)
    expect(JSON.parse(audit[0]!.metadata)).toEqual({
      plan: 'pro',
      interval: 'year',
      session_id: session.id,
    })
  })

  it('reuses the stored customer and passes return URLs on its own origin, the session placeholder intact', async () => {
    const customersBefore = requestsTo('/v1/customers').length
    const response = await checkout(org.owner, {
      organization_id: org.id,
      plan: 'pro',
      interval: 'month',
      success_url: 'http://switchboard.test/orgs/x/billing/{CHECKOUT_SESSION_ID}/done',
      cancel_url: 'http://switchboard.test/orgs/x/billing?cancelled=1',
    })
    expect(response.statusCode).toBe(201)
    expect(requestsTo('/v1/customers')).toHaveLength(customersBefore)
    expect(requestsTo('/v1/checkout/sessions').at(-1)!.form).toMatchObject({
      'line_items[0][price]': 'price_pro_month',
      success_url: 'http://switchboard.test/orgs/x/billing/{CHECKOUT_SESSION_ID}/done',
      cancel_url: 'http://switchboard.test/orgs/x/billing?cancelled=1',
    })
  })

  it('gives two concurrent first checkouts of an organization one customer', async () => {
    const fresh = await createOrgWithRoles(t)
    const responses = await Promise.all(
      [1, 2].map(() =>
        checkout(fresh.owner, { organization_id: fresh.id, plan: 'team', interval: 'year' }),
      ),
    )
    expect(responses.map((r) => r.statusCode)).toEqual([201, 201])
    const customers = requestsTo('/v1/customers').filter(
      (r) => r.form['metadata[organization_id]'] === fresh.id,
    )
    // Both may race to create it (then Stripe's idempotency key makes them one), or the second may
    // already see the first's.
    expect(customers.length).toBeGreaterThanOrEqual(1)
    expect(customers.length).toBeLessThanOrEqual(2)
    expect(new Set(customers.map((r) => r.idempotencyKey))).toEqual(
      new Set([`switchboard-customer-${fresh.id}`]),
    )
    const sessions = requestsTo('/v1/checkout/sessions').filter(
      (r) => r.form.client_reference_id === fresh.id,
    )
    expect(new Set(sessions.map((r) => r.form.customer)).size).toBe(1)
    const stored = await t.deps.db
      .selectFrom('organizations')
      .select('stripe_customer_id')
      .where('id', '=', fresh.id)
      .executeTakeFirstOrThrow()
    expect(stored.stripe_customer_id).toBe(sessions[0]!.form.customer)
  })

  it('refuses unknown plans, intervals the plan is not sold in and return URLs elsewhere (400), before calling Stripe', async () => {
    const before = stripe.requests.length
    const cases: Array<[Record<string, unknown>, string]> = [
      [{ plan: 'enterprise', interval: 'month' }, 'plan'],
      [{ plan: 'free', interval: 'month' }, 'plan'],
      [{ plan: 'team', interval: 'month' }, 'interval'],
      [{ plan: 'pro', interval: 'week' }, 'interval'],
      [
        { plan: 'pro', interval: 'month', success_url: 'https://evil.example/billing' },
        'success_url',
      ],
      [
        { plan: 'pro', interval: 'month', success_url: 'http://switchboard.test.evil.example/' },
        'success_url',
      ],
      [
        { plan: 'pro', interval: 'month', cancel_url: 'https://switchboard.test/cancel' },
        'cancel_url',
      ],
      [{ plan: 'pro', interval: 'month', cancel_url: 'javascript:alert(1)' }, 'cancel_url'],
      [{ plan: 'pro', interval: 'month', cancel_url: '/relative' }, 'cancel_url'],
      [{ plan: 'pro' }, 'interval'],
      [{ plan: 'pro', interval: 'month', coupon: 'FREE' }, 'coupon'],
    ]
    // A fresh owner every few cases: each attempt counts against the per-user checkout limit.
    let owner: OrgWithRoles = org
    for (const [i, [fields, field]] of cases.entries()) {
      if (i % 8 === 0) owner = await createOrgWithRoles(t)
      const response = await checkout(owner.owner, { organization_id: owner.id, ...fields })
      expectReason(response, 400, 'VALIDATION_FAILED')
      expect(
        response.json().details.map((d: { field: string }) => d.field),
        JSON.stringify(fields),
      ).toContain(field)
    }
    expect(stripe.requests.length).toBe(before)
  })

  it("answers Stripe's failures with 502 UPSTREAM_FAILED and no Stripe text", async () => {
    const failing = await createOrgWithRoles(t)
    try {
      stripe.mode = 'card-error'
      const refused = await checkout(failing.owner, {
        organization_id: failing.id,
        plan: 'pro',
        interval: 'month',
      })
      expectReason(refused, 502, 'UPSTREAM_FAILED')
      expect(refused.json().message).toBe('Stripe answered HTTP 400 (resource_missing).')
      stripe.mode = 'server-error'
      expect(
        (
          await checkout(failing.owner, {
            organization_id: failing.id,
            plan: 'pro',
            interval: 'month',
          })
        ).json(),
      ).toMatchObject({
        reason: 'UPSTREAM_FAILED',
        message: 'Stripe answered HTTP 500.',
      })
      stripe.mode = 'hang-up'
      const unreachable = await checkout(failing.owner, {
        organization_id: failing.id,
        plan: 'pro',
        interval: 'month',
      })
      expectReason(unreachable, 502, 'UPSTREAM_FAILED')
      expect(unreachable.json().message).toBe('Stripe could not be reached.')
    } finally {
      stripe.mode = 'ok'
    }
    expect(
      (
        await checkout(failing.owner, {
          organization_id: failing.id,
          plan: 'pro',
          interval: 'month',
        })
      ).statusCode,
    ).toBe(201)
  }, 20_000)

  it('limits checkout attempts to 10 per 15 minutes per user', async () => {
    const busy = await createOrgWithRoles(t)
    const statuses: number[] = []
    for (let i = 0; i < 11; i++)
      statuses.push(
        (await checkout(busy.owner, { organization_id: busy.id, plan: 'nope', interval: 'month' }))
          .statusCode,
      )
    expect(statuses.slice(0, 10).every((s) => s === 400)).toBe(true)
    expect(statuses[10]).toBe(429)
  })
})

describe('without Stripe configured', () => {
  let bare: PeerInstance
  beforeAll(async () => {
    bare = await startPeerInstance(t, {
      STRIPE_SECRET_KEY: '',
      STRIPE_WEBHOOK_SECRET: '',
      BILLING_PLANS: '',
    })
  })
  afterAll(async () => {
    await bare?.close()
  })

  it('lists no plans, answers checkout with 503 NOT_CONFIGURED (after the role check) and the webhook with 503', async () => {
    const org = await createOrgWithRoles(t)
    const plans = await bare.app.inject({
      method: 'GET',
      url: '/api/billing/plans',
      headers: bearer(org.member.token),
    })
    expect(plans.json()).toEqual({ items: [], next_cursor: null })
    expectReason(
      await checkout(
        org.member,
        { organization_id: org.id, plan: 'pro', interval: 'month' },
        bare.app,
      ),
      403,
      'FORBIDDEN',
    )
    expectReason(
      await checkout(
        org.owner,
        { organization_id: org.id, plan: 'pro', interval: 'month' },
        bare.app,
      ),
      503,
      'NOT_CONFIGURED',
    )
    const webhook = await bare.app.inject({
      method: 'POST',
      url: '/api/billing/webhook',
      headers: { 'stripe-signature': 't=1,v1=00' },
      payload: { id: 'evt_1' },
    })
    expectReason(webhook, 503, 'NOT_CONFIGURED')
  })
})
