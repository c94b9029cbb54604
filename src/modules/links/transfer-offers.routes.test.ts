/**
 * A link given to a person is an offer (docs/API.md#recently-deleted-and-transfer): it stays the
 * sender's until the recipient accepts; the sender's answer is the same whether or not the
 * recipient has the slug (no oracle), the collision is the recipient's 409 at acceptance and the
 * offer stands; decline, cancel, expiry after 7 days and a link edited meanwhile end it; of
 * concurrent accepts exactly one moves the link; every step is audited; the recipient is mailed.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { useTestApp } from '../../../test/helpers/app.js'
import {
  bearer,
  createSignedInUser,
  DEFAULT_PASSWORD,
  login,
  type SignedIn,
} from '../../../test/helpers/factories.js'
import { useSmtpStandIn } from '../../../test/helpers/smtp-settings.js'
import { createLink } from '../../../test/helpers/links.js'
import { addOrgMember, createOrganization } from '../../../test/helpers/organizations.js'
import { SMTP_PASSWORD, SMTP_USERNAME } from '../../../test/helpers/secret-scan.js'
import { startSmtpStandIn, textOf, type SmtpStandIn } from '../../../test/helpers/smtp-server.js'

const t = useTestApp({ env: { RATE_LIMIT_GENERAL: '0' } })

const api = (
  user: SignedIn,
  method: 'GET' | 'POST' | 'PATCH' | 'DELETE',
  url: string,
  payload?: unknown,
) =>
  t.app.inject({
    method,
    url,
    headers: bearer(user.token),
    ...(payload !== undefined && { payload: payload as object }),
  })

type Person = Awaited<ReturnType<typeof createSignedInUser>>

/** Alice and the given number of colleagues, all members of one organization of hers. */
async function colleagues(count: number): Promise<Person[]> {
  const alice = await createSignedInUser(t, { name: 'Alice' })
  const org = await createOrganization(t, alice.token)
  const others: Person[] = []
  for (let i = 0; i < count; i++) {
    const person = await createSignedInUser(t)
    await addOrgMember(t, alice.token, org.id, person, 'member')
    others.push(person)
  }
  return [alice, ...others]
}

const offer = (from: SignedIn, linkId: string, to: Person) =>
  api(from, 'POST', `/api/links/${linkId}/transfer`, { user_id: to.user.id })
const offers = async (user: SignedIn) =>
  (await api(user, 'GET', '/api/links/transfer-offers')).json()
const accept = (user: SignedIn, id: string) =>
  api(user, 'POST', `/api/links/transfer-offers/${id}/accept`)
const actions = async (linkId: string) =>
  (
    await t.deps.db
      .selectFrom('audit_events')
      .select(['action', 'leaf_index'])
      .where('target_id', '=', linkId)
      .orderBy('leaf_index')
      .execute()
  ).map((event) => event.action)

describe('offering a link to a person', () => {
  it('leaves the link with the sender until the recipient accepts; both see the offer; audited', async () => {
    const [alice, bob] = (await colleagues(1)) as [Person, Person]
    const link = await createLink(t, alice.token, { slug: 'payroll', url: 'https://pay.example/' })
    const offered = await offer(alice, link.id, bob)
    expect(offered.statusCode).toBe(202)
    expect(offered.json()).toMatchObject({
      link: { id: link.id, slug: 'payroll', url: 'https://pay.example/' },
      from: { id: alice.user.id, name: 'Alice' },
      to: { id: bob.user.id },
      organization_id: null,
    })
    expect((await api(bob, 'GET', `/api/links/${link.id}`)).statusCode).toBe(404)
    expect((await api(alice, 'GET', `/api/links/${link.id}`)).statusCode).toBe(200)
    expect((await offers(bob)).incoming).toEqual([offered.json()])
    expect((await offers(alice)).outgoing).toEqual([offered.json()])
    expect((await offers(alice)).incoming).toEqual([])

    const accepted = await accept(bob, offered.json().id)
    expect(accepted.statusCode).toBe(200)
    expect(accepted.json()).toEqual({ id: link.id, user_id: bob.user.id, organization_id: null })
    expect((await api(bob, 'GET', `/api/links/${link.id}`)).json()).toMatchObject({
      slug: 'payroll',
    })
    expect((await api(alice, 'GET', `/api/links/${link.id}`)).statusCode).toBe(404)
    expect(await offers(bob)).toEqual({ incoming: [], outgoing: [] })
    expect(await actions(link.id)).toEqual(['link.transfer_offer', 'link.transfer'])
  })

  it("answers the sender alike whether or not the recipient has the slug; the collision is the recipient's 409 and the offer stands", async () => {
    const [alice, bob, carol] = (await colleagues(2)) as [Person, Person, Person]
    const bobs = await createLink(t, bob.token, { slug: 'payroll', url: 'https://bob.example/' })
    const toBob = await offer(
      alice,
      (await createLink(t, alice.token, { slug: 'payroll' })).id,
      bob,
    )
    const toCarol = await offer(
      alice,
      (await createLink(t, alice.token, { slug: 'PayRoll-2' })).id,
      carol,
    )
    expect(toBob.statusCode).toBe(202)
    expect(toCarol.statusCode).toBe(202)
    expect(Object.keys(toBob.json()).sort()).toEqual(Object.keys(toCarol.json()).sort())

    const taken = await accept(bob, toBob.json().id)
    expect(taken.statusCode).toBe(409)
    expect(taken.json().reason).toBe('TRANSFER_SLUG_TAKEN')
    expect((await offers(bob)).incoming).toHaveLength(1)
    expect((await api(bob, 'GET', `/api/links/${bobs.id}`)).json().url).toBe('https://bob.example/')

    expect(
      (await api(bob, 'PATCH', `/api/links/${bobs.id}`, { slug: 'my-payroll' })).statusCode,
    ).toBe(200)
    expect((await accept(bob, toBob.json().id)).statusCode).toBe(200)
  })

  it('declined by the recipient or withdrawn by the sender, it ends; nobody else may answer it', async () => {
    const [alice, bob, carol] = (await colleagues(2)) as [Person, Person, Person]
    const link = await createLink(t, alice.token, { slug: 'offered' })
    const first = (await offer(alice, link.id, bob)).json().id as string
    for (const [who, method, url] of [
      [carol, 'POST', `/api/links/transfer-offers/${first}/accept`],
      [carol, 'POST', `/api/links/transfer-offers/${first}/decline`],
      [alice, 'POST', `/api/links/transfer-offers/${first}/accept`],
      [bob, 'POST', `/api/links/transfer-offers/${first}/cancel`],
    ] as const) {
      expect((await api(who, method, url)).statusCode, `${method} ${url}`).toBe(404)
    }
    expect((await api(bob, 'POST', `/api/links/transfer-offers/${first}/decline`)).statusCode).toBe(
      204,
    )
    expect((await accept(bob, first)).statusCode).toBe(404)

    const second = (await offer(alice, link.id, bob)).json().id as string
    expect(
      (await api(alice, 'POST', `/api/links/transfer-offers/${second}/cancel`)).statusCode,
    ).toBe(204)
    expect((await accept(bob, second)).statusCode).toBe(404)
    expect((await api(alice, 'GET', `/api/links/${link.id}`)).statusCode).toBe(200)
    expect(await actions(link.id)).toEqual([
      'link.transfer_offer',
      'link.transfer_decline',
      'link.transfer_offer',
      'link.transfer_cancel',
    ])
  })

  it('lapses after 7 days (audited when purged) and when the link is edited meanwhile', async () => {
    const [alice, bob] = (await colleagues(1)) as [Person, Person]
    const old = await createLink(t, alice.token, { slug: 'old-offer' })
    const stale = (await offer(alice, old.id, bob)).json().id as string
    t.clock.advance(7 * 24 * 60 * 60 + 1)
    // The sessions ended with the week: both sign in again.
    const alice2 = await login(t, alice.email, DEFAULT_PASSWORD)
    const bob2 = await login(t, bob.email, DEFAULT_PASSWORD)
    expect((await accept(bob2, stale)).statusCode).toBe(404)
    expect((await offers(bob2)).incoming).toEqual([])
    expect(await actions(old.id)).toContain('link.transfer_expire')

    const edited = await createLink(t, alice2.token, { slug: 'edited', url: 'https://a.example/' })
    const id = (await offer(alice2, edited.id, bob)).json().id as string
    t.clock.advance(1)
    const patched = await api(alice2, 'PATCH', `/api/links/${edited.id}`, {
      url: 'https://elsewhere.example/',
    })
    expect(patched.statusCode).toBe(200)
    expect((await accept(bob2, id)).statusCode).toBe(404)
    expect((await api(alice2, 'GET', `/api/links/${edited.id}`)).statusCode).toBe(200)
  })

  it('of concurrent accepts exactly one moves the link', async () => {
    const [alice, bob] = (await colleagues(1)) as [Person, Person]
    const link = await createLink(t, alice.token, { slug: 'raced' })
    const id = (await offer(alice, link.id, bob)).json().id as string
    const answers = await Promise.all(Array.from({ length: 6 }, () => accept(bob, id)))
    expect(answers.map((a) => a.statusCode).sort()).toEqual([200, 404, 404, 404, 404, 404])
    expect((await actions(link.id)).filter((a) => a === 'link.transfer')).toHaveLength(1)
  })

  it('a transfer into an organization still moves at once (200)', async () => {
    const alice = await createSignedInUser(t)
    const org = await createOrganization(t, alice.token)
    const link = await createLink(t, alice.token, { slug: 'to-team' })
    const moved = await api(alice, 'POST', `/api/links/${link.id}/transfer`, {
      organization_id: org.id,
    })
    expect(moved.statusCode).toBe(200)
    expect(moved.json()).toEqual({ id: link.id, user_id: null, organization_id: org.id })
  })
})

describe('with mail', () => {
  let smtp: SmtpStandIn
  beforeAll(async () => {
    smtp = await startSmtpStandIn({
      credentials: { username: SMTP_USERNAME, password: SMTP_PASSWORD },
    })
  })
  afterAll(async () => {
    await smtp?.close()
  })

  it('the recipient is mailed the offer', async () => {
    await useSmtpStandIn(t, smtp)
    const [alice, bob] = (await colleagues(1)) as [Person, Person]
    const link = await createLink(t, alice.token, { slug: 'mailed' })
    expect((await offer(alice, link.id, bob)).statusCode).toBe(202)
    const mail = smtp.received.filter((m) => m.to.includes(bob.email)).at(-1)
    expect(mail).toBeTruthy()
    expect(textOf(mail!)).toContain('Alice would like to give you the link go/mailed')
  })
})
