/**
 * POST /api/billing/webhook (docs/API.md#billing): signatures on the raw body, each event once,
 * plan changes.
 */
import Stripe from 'stripe'
import { afterAll, describe, expect, it } from 'vitest'
import { startPeerInstance, useTestApp } from '../../../test/helpers/app.js'
import { expectReason } from '../../../test/helpers/expect.js'
import { createOrgWithRoles } from '../../../test/helpers/organizations.js'
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

let sequence = 0
const nowSeconds = () => Math.floor(t.clock.now().getTime() / 1000)

function event(
  type: string,
  object: Record<string, unknown>,
  created = nowSeconds(),
): Record<string, unknown> {
  sequence += 1
  return {
    id: `evt_test_${sequence}_${Date.now()}`,
    object: 'event',
    api_version: '2026-10-28.endive',
    created,
    type,
    data: { object },
  }
}

/** Delivers the event as Stripe does: the exact bytes, signed with the endpoint secret. */
function deliver(
  payload: Record<string, unknown> | string,
  options: {
    secret?: string
    timestamp?: number
    signature?: string | null
    contentType?: string
    app?: typeof t.app
  } = {},
) {
  const body = typeof payload === 'string' ? payload : JSON.stringify(payload, null, 2)
  const signature =
    options.signature !== undefined
      ? options.signature
      : Stripe.webhooks.generateTestHeaderString({
          payload: body,
          secret: options.secret ?? TEST_STRIPE_WEBHOOK_SECRET,
          timestamp: options.timestamp ?? nowSeconds(),
        })
  return (options.app ?? t.app).inject({
    method: 'POST',
    url: '/api/billing/webhook',
    headers: {
      'content-type': options.contentType ?? 'application/json',
      ...(signature !== null && { 'stripe-signature': signature }),
    },
    payload: body,
  })
}

const planOf = async (organizationId: string) =>
  await t.deps.db
    .selectFrom('organizations')
    .select(['plan', 'stripe_customer_id'])
    .where('id', '=', organizationId)
    .executeTakeFirstOrThrow()

const planChanges = (organizationId: string) =>
  t.deps.db
    .selectFrom('audit_events')
    .select(['actor_id', 'metadata'])
    .where('action', '=', 'billing.plan_change')
    .where('target_id', '=', organizationId)
    .execute()

function completed(
  organizationId: string,
  customer: string,
  plan = 'pro',
  extra: Record<string, unknown> = {},
) {
  return event('checkout.session.completed', {
    id: `cs_test_${sequence}`,
    object: 'checkout.session',
    mode: 'subscription',
    payment_status: 'paid',
    status: 'complete',
    client_reference_id: organizationId,
    customer,
    subscription: 'sub_123',
    metadata: { organization_id: organizationId, plan },
    ...extra,
  })
}

function subscription(
  type: string,
  customer: string,
  status: string,
  price: string,
  created?: number,
) {
  return event(
    type,
    {
      id: 'sub_123',
      object: 'subscription',
      customer,
      status,
      items: { object: 'list', data: [{ id: 'si_1', price: { id: price, object: 'price' } }] },
    },
    created,
  )
}

describe('signatures', () => {
  it('refuses a missing, malformed, foreign, stale or non-matching signature: 400 on stripe-signature, nothing recorded', async () => {
    const org = await createOrgWithRoles(t)
    const payload = completed(org.id, 'cus_sig')
    const body = JSON.stringify(payload)
    const cases = [
      deliver(payload, { signature: null }),
      deliver(payload, { signature: 'garbage' }),
      deliver(payload, { secret: 'whsec_someoneElsesSecret123' }),
      deliver(payload, { timestamp: nowSeconds() - 600 }),
      deliver(body.replace('"pro"', '"team"'), {
        signature: Stripe.webhooks.generateTestHeaderString({
          payload: body,
          secret: TEST_STRIPE_WEBHOOK_SECRET,
        }),
      }),
    ]
    for (const response of await Promise.all(cases)) {
      expectReason(response, 400, 'VALIDATION_FAILED')
      expect(response.json().details.map((d: { field: string }) => d.field)).toEqual([
        'stripe-signature',
      ])
    }
    expect((await planOf(org.id)).plan).toBe('free')
    expect(
      await t.deps.db
        .selectFrom('billing_events')
        .select('id')
        .where('id', '=', payload.id as string)
        .execute(),
    ).toEqual([])
  })

  it('takes only JSON bodies and is not held to the general rate limit', async () => {
    expectReason(
      await deliver('id=evt_1', { contentType: 'application/x-www-form-urlencoded' }),
      415,
      'UNSUPPORTED_MEDIA_TYPE',
    )
    // One request per minute for everything else: Stripe's deliveries must all get through.
    const strict = await startPeerInstance(t, { RATE_LIMIT_GENERAL: '1' })
    try {
      for (let i = 0; i < 3; i++)
        expect((await deliver(event('ping.test', {}), { app: strict.app })).statusCode).toBe(200)
      // …while the limit is in force for the other public routes.
      expect((await strict.app.inject({ method: 'GET', url: '/api/auth/setup' })).statusCode).toBe(
        200,
      )
      expectReason(
        await strict.app.inject({ method: 'GET', url: '/api/auth/setup' }),
        429,
        'RATE_LIMITED',
      )
    } finally {
      await strict.close()
    }
  })

  it('refuses a validly signed body that is not a Stripe event (400 on body)', async () => {
    const response = await deliver({ hello: 'world' })
    expectReason(response, 400, 'VALIDATION_FAILED')
    expect(response.json().details).toEqual([
      { field: 'body', message: 'is not a Stripe event', code: 'invalid' },
    ])
  })
})

describe('plan changes', () => {
  it('checkout.session.completed gives the organization the plan, and its customer when it has none', async () => {
    const org = await createOrgWithRoles(t)
    const response = await deliver(completed(org.id, 'cus_completed'))
    expect(response.statusCode).toBe(200)
    expect(response.json()).toEqual({ received: true })
    expect(await planOf(org.id)).toEqual({ plan: 'pro', stripe_customer_id: 'cus_completed' })
    const changes = await planChanges(org.id)
    expect(changes).toHaveLength(1)
    expect(changes[0]!.actor_id).toBeNull()
    expect(JSON.parse(changes[0]!.metadata)).toMatchObject({
      from: 'free',
      to: 'pro',
      stripe_event_type: 'checkout.session.completed',
    })
  })

  it('processes each event id once: a redelivery answers 200 and changes nothing, also when concurrent', async () => {
    const org = await createOrgWithRoles(t)
    const first = completed(org.id, 'cus_once')
    const concurrent = await Promise.all([deliver(first), deliver(first), deliver(first)])
    expect(concurrent.map((r) => r.statusCode)).toEqual([200, 200, 200])
    expect(await planChanges(org.id)).toHaveLength(1)
    expect(
      (
        await deliver(
          subscription('customer.subscription.deleted', 'cus_once', 'canceled', 'price_pro_month'),
        )
      ).statusCode,
    ).toBe(200)
    expect((await planOf(org.id)).plan).toBe('free')
    // The old checkout event again: already processed, so the organization stays on free.
    const again = await deliver(first)
    expect(again.statusCode).toBe(200)
    expect(again.json()).toEqual({ received: true })
    expect((await planOf(org.id)).plan).toBe('free')
    expect(
      await t.deps.db
        .selectFrom('billing_events')
        .select('id')
        .where('id', '=', first.id as string)
        .execute(),
    ).toHaveLength(1)
  })

  it('customer.subscription.updated follows the price while active or trialing, keeps the plan while past due, and ends it', async () => {
    const org = await createOrgWithRoles(t)
    await deliver(completed(org.id, 'cus_updates'))
    const steps: Array<[string, string, string]> = [
      ['active', 'price_team_year', 'team'],
      ['trialing', 'price_pro_month', 'pro'],
      ['past_due', 'price_team_year', 'pro'],
      ['incomplete', 'price_team_year', 'pro'],
      ['active', 'price_unknown', 'pro'],
      ['unpaid', 'price_pro_month', 'free'],
      ['active', 'price_pro_year', 'pro'],
      ['canceled', 'price_pro_year', 'free'],
    ]
    for (const [status, price, expected] of steps) {
      expect(
        (await deliver(subscription('customer.subscription.updated', 'cus_updates', status, price)))
          .statusCode,
      ).toBe(200)
      expect((await planOf(org.id)).plan, `${status} ${price}`).toBe(expected)
    }
    expect((await planChanges(org.id)).map((row) => JSON.parse(row.metadata).to)).toEqual([
      'pro',
      'team',
      'pro',
      'free',
      'pro',
      'free',
    ])
  })

  it('customer.subscription.deleted puts the organization back on free', async () => {
    const org = await createOrgWithRoles(t)
    await deliver(completed(org.id, 'cus_deleted', 'team'))
    expect((await planOf(org.id)).plan).toBe('team')
    await deliver(
      subscription('customer.subscription.deleted', 'cus_deleted', 'canceled', 'price_team_year'),
    )
    expect((await planOf(org.id)).plan).toBe('free')
  })

  it('ignores an event older than the one that set the plan (Stripe does not deliver in order)', async () => {
    const org = await createOrgWithRoles(t)
    const created = nowSeconds()
    await deliver(completed(org.id, 'cus_order'))
    await deliver(
      subscription(
        'customer.subscription.deleted',
        'cus_order',
        'canceled',
        'price_pro_month',
        created + 10,
      ),
    )
    await deliver(
      subscription(
        'customer.subscription.updated',
        'cus_order',
        'active',
        'price_team_year',
        created + 5,
      ),
    )
    expect((await planOf(org.id)).plan).toBe('free')
  })

  it('records and ignores unknown types, unknown plans, unpaid sessions and unknown organizations or customers', async () => {
    const org = await createOrgWithRoles(t)
    const ignored = [
      event('invoice.paid', { id: 'in_1', customer: 'cus_x' }),
      completed(org.id, 'cus_ignored', 'enterprise'),
      completed(org.id, 'cus_ignored', 'pro', { payment_status: 'unpaid' }),
      completed(org.id, 'cus_ignored', 'pro', { mode: 'payment' }),
      completed('no-such-organization', 'cus_ignored'),
      subscription('customer.subscription.updated', 'cus_nobody', 'active', 'price_pro_month'),
    ]
    for (const payload of ignored) {
      const response = await deliver(payload)
      expect(response.statusCode, String(payload.type)).toBe(200)
      expect(
        await t.deps.db
          .selectFrom('billing_events')
          .select('id')
          .where('id', '=', payload.id as string)
          .execute(),
      ).toHaveLength(1)
    }
    expect(await planOf(org.id)).toEqual({ plan: 'free', stripe_customer_id: null })
    expect(await planChanges(org.id)).toEqual([])
  })

  it('keeps an existing customer id: a checkout cannot re-point the organization to another customer', async () => {
    const org = await createOrgWithRoles(t)
    await deliver(completed(org.id, 'cus_first'))
    await deliver(completed(org.id, 'cus_second', 'team'))
    expect(await planOf(org.id)).toEqual({ plan: 'team', stripe_customer_id: 'cus_first' })
  })
})

describe('the organization page', () => {
  it('shows the plan billing set', async () => {
    const org = await createOrgWithRoles(t)
    await deliver(completed(org.id, 'cus_shown', 'team'))
    const response = await t.app.inject({
      method: 'GET',
      url: `/api/organizations/${org.id}`,
      headers: { authorization: `Bearer ${org.member.token}` },
    })
    expect(response.json().plan).toBe('team')
  })
})
