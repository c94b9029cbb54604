/**
 * Bidi and invisible characters are refused (400 VALIDATION_FAILED naming the
 * field) in every display text other people see — user, organization, team, tag, token and
 * provider names, link titles, the SMTP sender name — through the one shared rule
 * (DisplayText in src/lib/schema-types.ts).
 */
import { beforeAll, describe, expect, it } from 'vitest'
import { useTestApp } from '../helpers/app.js'
import {
  bearer,
  createSignedInUser,
  type SignedIn,
  type TestUser,
  withAdminProof,
} from '../helpers/factories.js'
import { createLink } from '../helpers/links.js'
import { createOrganization } from '../helpers/organizations.js'
import { isDisplayText } from '../../src/lib/schema-types.js'

const t = useTestApp({ env: { RATE_LIMIT_GENERAL: '0' } })
let admin: TestUser & SignedIn
let user: TestUser & SignedIn

beforeAll(async () => {
  admin = await createSignedInUser(t, { isAdmin: true })
  user = await createSignedInUser(t)
})

/** Each hides or reorders what a reader sees. */
const INVISIBLE = {
  'RLO U+202E': 'evil\u202Egnp.exe',
  'LRE U+202A': 'a\u202Ab',
  'PDF U+202C': 'a\u202Cb',
  'LRI U+2066': 'a\u2066b',
  'PDI U+2069': 'a\u2069b',
  'ZWSP U+200B': 'ad\u200Bmin',
  'LRM U+200E': 'a\u200Eb',
  'RLM U+200F': 'a\u200Fb',
  'BOM U+FEFF': 'na\uFEFFme', // (at either end it is trimmed away like a space)
  'LS U+2028': 'a\u2028b',
  'PS U+2029': 'a\u2029b',
  'soft hyphen U+00AD': 'a\u00ADb',
  'word joiner U+2060': 'a\u2060b',
  'ALM U+061C': 'a\u061Cb',
  'tag U+E0041': 'a\u{E0041}b',
  'BEL U+0007': 'a\u0007b',
}

interface Target {
  field: string
  send(
    value: string,
  ): Promise<{ statusCode: number; json(): { reason: string; details: Array<{ field: string }> } }>
}

function targets(): Record<string, Target> {
  const as =
    (token: string, method: 'POST' | 'PATCH' | 'PUT', url: string, body: (v: string) => object) =>
    (value: string) =>
      t.app.inject({
        method,
        url,
        headers: bearer(token),
        payload: withAdminProof(body(value), url),
      })
  return {
    'user name (PATCH /api/users/me)': {
      field: 'name',
      send: as(user.token, 'PATCH', '/api/users/me', (name) => ({ name })),
    },
    'user name (POST /api/admin/users)': {
      field: 'name',
      send: as(admin.token, 'POST', '/api/admin/users', (name) => ({
        email: `x${Math.random().toString(36).slice(2)}@example.com`,
        name,
        password: 'a sound passphrase 42',
      })),
    },
    'organization name': {
      field: 'name',
      send: as(user.token, 'POST', '/api/organizations', (name) => ({ name })),
    },
    'team name': {
      field: 'name',
      send: as(admin.token, 'POST', '/api/admin/teams', (name) => ({ name })),
    },
    'team description': {
      field: 'description',
      send: as(admin.token, 'POST', '/api/admin/teams', (description) => ({
        name: 'Fine team',
        description,
      })),
    },
    'tag name': { field: 'name', send: as(user.token, 'POST', '/api/tags', (name) => ({ name })) },
    'link title': {
      field: 'title',
      send: as(user.token, 'POST', '/api/links', (title) => ({
        url: 'https://example.com/',
        title,
      })),
    },
    // Token creation has its own budget (10 per 15 minutes per user): a fresh user for each
    // attempt.
    'token name': {
      field: 'name',
      send: async (name) =>
        as((await createSignedInUser(t)).token, 'POST', '/api/tokens', () => ({
          name,
          permissions: ['links:read'],
        }))(name),
    },
    'provider name': {
      field: 'name',
      send: as(admin.token, 'POST', '/api/oidc-providers', (name) => ({
        provider_key: 'display',
        name,
        issuer_url: 'https://idp.example.com',
        client_id: 'c',
        client_secret: null,
      })),
    },
    'SMTP sender name': {
      field: 'from_name',
      send: as(admin.token, 'PUT', '/api/admin/settings/smtp', (from_name) => ({ from_name })),
    },
  }
}

describe('display text', () => {
  it('refuses_bidi_and_invisible_characters_in_every_display_text_with_400_naming_the_field', async () => {
    for (const [what, target] of Object.entries(targets())) {
      // A burst per field: every request refused the same way.
      const responses = await Promise.all(
        Object.values(INVISIBLE).map((value) => target.send(value)),
      )
      responses.forEach((response, i) => {
        const label = `${what}: ${Object.keys(INVISIBLE)[i]}`
        expect(response.statusCode, label).toBe(400)
        expect(response.json().reason, label).toBe('VALIDATION_FAILED')
        expect(
          response.json().details.map((d: { field: string }) => d.field),
          label,
        ).toContain(target.field)
      })
    }
  })

  it('keeps_accepting_ordinary_text_in_any_script_and_emoji', async () => {
    for (const name of ['Zoë Ørsted', 'محمد', 'שלום', '日本語チーム', 'Team 🚀', 'O’Brien – Ops']) {
      expect(
        (
          await t.app.inject({
            method: 'PATCH',
            url: '/api/users/me',
            headers: bearer(user.token),
            payload: { name },
          })
        ).statusCode,
        name,
      ).toBe(200)
    }
    const org = await createOrganization(t, user.token, 'Ünïcødé Org')
    expect(org.name).toBe('Ünïcødé Org')
    expect(
      (await createLink(t, user.token, { url: 'https://example.com/x', title: 'Résumé' })).title,
    ).toBe('Résumé')
  })

  // The joiners real scripts need — ZWNJ in Persian, ZWJ in emoji sequences and Indic
  // conjuncts — are accepted, saved as sent and shown back; they change no direction.
  it('accepts_the_zero_width_joiners_that_real_scripts_need', async () => {
    for (const name of ['مهرداد نیک\u200Cنام', '👩\u200D💻', 'क्\u200Dष']) {
      const response = await t.app.inject({
        method: 'PATCH',
        url: '/api/users/me',
        headers: bearer(user.token),
        payload: { name },
      })
      expect(response.statusCode, name).toBe(200)
      expect(response.json().name).toBe(name)
      expect(isDisplayText(name)).toBe(true)
    }
    const org = await createOrganization(t, user.token, 'تیم نیک\u200Cنام')
    expect(org.name).toBe('تیم نیک\u200Cنام')
    // A joiner next to a bidi override does not let the override through.
    const refused = await t.app.inject({
      method: 'PATCH',
      url: '/api/users/me',
      headers: bearer(user.token),
      payload: { name: 'نیک\u200Cنام\u202E' },
    })
    expect(refused.statusCode).toBe(400)
    expect(refused.json().details).toEqual([
      {
        field: 'name',
        message: 'must not contain control, invisible or text-direction characters',
        code: 'invalid_characters',
      },
    ])
  })

  it('names_the_same_rule_for_text_that_comes_from_elsewhere', () => {
    for (const value of Object.values(INVISIBLE))
      expect(isDisplayText(value), JSON.stringify(value)).toBe(false)
    expect(isDisplayText('Plain name')).toBe(true)
  })
})
