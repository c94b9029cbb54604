/**
 * A small Stripe API on 127.0.0.1 (node:http) speaking Stripe's wire format: form-encoded requests
 * (`line_items[0][price]=…`), JSON answers shaped like Stripe's. It answers `POST /v1/customers`
 * (replaying the first answer for a repeated Idempotency-Key, as Stripe does) and
 * `POST /v1/checkout/sessions`, records every request with its Authorization and Idempotency-Key,
 * and fails on demand. A wrong key is answered quoting it back, the way Stripe's error messages
 * quote parts of keys, so tests can prove that text never reaches a client.
 */
import http from 'node:http'
import type { AddressInfo } from 'node:net'
import { randomBytes } from 'node:crypto'

export type StripeStandInMode = 'ok' | 'card-error' | 'server-error' | 'hang-up'

export interface RecordedStripeRequest {
  method: string
  path: string
  /** The form fields as sent, flat: `{ 'line_items[0][price]': 'price_…' }`. */
  form: Record<string, string>
  authorization: string | undefined
  idempotencyKey: string | undefined
}

export interface StripeStandIn {
  /** For STRIPE_API_BASE, e.g. http://127.0.0.1:41234 */
  baseUrl: string
  secretKey: string
  requests: RecordedStripeRequest[]
  mode: StripeStandInMode
  /** Customers created, by id. */
  customers: Map<string, Record<string, string>>
  close(): Promise<void>
}

const id = (prefix: string) => `${prefix}_${randomBytes(12).toString('hex')}`

export async function startStripeStandIn(secretKey: string): Promise<StripeStandIn> {
  const standIn = {
    secretKey,
    requests: [],
    mode: 'ok',
    customers: new Map(),
  } as unknown as StripeStandIn
  const replays = new Map<string, { status: number; body: unknown }>()

  const json = (
    response: http.ServerResponse,
    status: number,
    body: unknown,
    headers: Record<string, string> = {},
  ) => {
    response.writeHead(status, {
      'content-type': 'application/json',
      'request-id': id('req'),
      ...headers,
    })
    response.end(JSON.stringify(body))
  }

  function answer(request: RecordedStripeRequest): { status: number; body: unknown } {
    if (request.authorization !== `Bearer ${standIn.secretKey}`) {
      const sent = request.authorization?.replace(/^Bearer /, '') ?? ''
      return {
        status: 401,
        body: {
          error: { type: 'invalid_request_error', message: `Invalid API Key provided: ${sent}` },
        },
      }
    }
    if (request.method === 'POST' && request.path === '/v1/customers') {
      const customer = id('cus')
      standIn.customers.set(customer, request.form)
      return {
        status: 200,
        body: { id: customer, object: 'customer', name: request.form.name ?? null, metadata: {} },
      }
    }
    if (request.method === 'POST' && request.path === '/v1/checkout/sessions') {
      if (standIn.mode === 'card-error') {
        return {
          status: 400,
          body: {
            error: {
              type: 'invalid_request_error',
              code: 'resource_missing',
              param: 'line_items[0][price]',
              message: `No such price; a similar object exists in test mode, but a live mode key (${standIn.secretKey}) was used.`,
            },
          },
        }
      }
      const session = id('cs_test')
      return {
        status: 200,
        body: {
          id: session,
          object: 'checkout.session',
          mode: request.form.mode,
          customer: request.form.customer,
          client_reference_id: request.form.client_reference_id ?? null,
          url: `https://checkout.stripe.test/c/pay/${session}`,
          expires_at: Math.floor(Date.now() / 1000) + 24 * 3600,
          success_url: request.form.success_url,
          cancel_url: request.form.cancel_url,
          metadata: { plan: request.form['metadata[plan]'] },
        },
      }
    }
    return {
      status: 404,
      body: {
        error: {
          type: 'invalid_request_error',
          message: `Unrecognized request URL (${request.method}: ${request.path}).`,
        },
      },
    }
  }

  const server = http.createServer((request, response) => {
    let raw = ''
    request.setEncoding('utf8')
    request.on('data', (chunk: string) => (raw += chunk))
    request.on('end', () => {
      const recorded: RecordedStripeRequest = {
        method: request.method ?? '',
        path: (request.url ?? '').split('?')[0]!,
        form: Object.fromEntries(new URLSearchParams(raw)),
        authorization: request.headers.authorization,
        idempotencyKey: request.headers['idempotency-key'] as string | undefined,
      }
      standIn.requests.push(recorded)
      if (standIn.mode === 'hang-up') return void request.socket.destroy()
      if (standIn.mode === 'server-error') {
        // Stripe marks its own 500s as not worth retrying with the same key.
        return json(
          response,
          500,
          {
            error: {
              type: 'api_error',
              message: `Something went wrong (key ${standIn.secretKey}).`,
            },
          },
          { 'stripe-should-retry': 'false' },
        )
      }
      const key =
        recorded.idempotencyKey === undefined
          ? undefined
          : `${recorded.path}:${recorded.idempotencyKey}`
      const result = (key !== undefined && replays.get(key)) || answer(recorded)
      if (key !== undefined && result.status === 200) replays.set(key, result)
      json(response, result.status, result.body)
    })
  })
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
  const { port } = server.address() as AddressInfo
  return Object.assign(standIn, {
    baseUrl: `http://127.0.0.1:${port}`,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections()
        server.close(() => resolve())
      }),
  })
}

// After `sk_test_` come letters outside hex, so no 8-character piece of the key can occur in the
// stand-in's ids (`cs_test_<hex>`): the secret scan looks for every such piece.
export const TEST_STRIPE_SECRET_KEY = 'sk_test_Qm4Yt7Rw2Ek9Uz3Hx6CvBn8Lp'
export const TEST_STRIPE_WEBHOOK_SECRET = 'whsec_Jb8Ns5Df1Gk6Lp2Mq7WzRt4Yx9'

/** `pro` is sold monthly and yearly, `team` yearly only. */
export const TEST_BILLING_PLANS = [
  { id: 'pro', name: 'Pro', prices: { month: 'price_pro_month', year: 'price_pro_year' } },
  { id: 'team', name: 'Team', prices: { year: 'price_team_year' } },
]

/** The environment of an instance billing through the stand-in. */
export function billingEnv(standIn: StripeStandIn): Record<string, string> {
  return {
    STRIPE_SECRET_KEY: standIn.secretKey,
    STRIPE_WEBHOOK_SECRET: TEST_STRIPE_WEBHOOK_SECRET,
    STRIPE_API_BASE: standIn.baseUrl,
    BILLING_PLANS: JSON.stringify(TEST_BILLING_PLANS),
  }
}
