/**
 * Our SCIM PATCH engine (patch.ts) against an independent one: the npm library `scim-patch`
 * (RFC 7644 §3.5.2, Unlicense; a devDependency used only here). fast-check generates User
 * resources shaped as this server renders them and sequences of operations on the attributes and
 * forms both engines support; for every sequence both must give the same resource, or both refuse.
 *
 * The generated subset: add/replace/remove on simple attributes (userName, displayName, active,
 * externalId, title), on sub-attributes (name.givenName, name.familyName), on the enterprise
 * extension's URN-qualified attributes, path-less replace/add with simple attributes, add of
 * new emails (appends), and replace/remove through value filters on emails
 * (`emails[type eq "work"].value`, `emails[primary eq true]`), and add/replace of the complex
 * attribute `name` by path. Two deliberate differences are checked as such, not skipped (see the
 * test). Left out of the generator: Entra's dotted keys in a path-less value and attribute names
 * in another case (the library does not take them), a remove with a value list (Entra's member
 * removal), and path-less values holding a complex attribute or an extension object — there the
 * library departs from RFC 7644 §3.5.2.1/§3.5.2.3 (it replaces `name` wholesale instead of
 * setting the sub-attributes sent, and splits an extension URN at its dots).
 */
import fc from 'fast-check'
import { NoTarget, scimPatch, type ScimPatchOperation, type ScimResource } from 'scim-patch'
import { describe, expect, it } from 'vitest'
import { applyPatch } from './patch.js'

const USER = 'urn:ietf:params:scim:schemas:core:2.0:User'
const ENTERPRISE = 'urn:ietf:params:scim:schemas:extension:enterprise:2.0:User'

const word = fc.stringMatching(/^[a-z]{1,8}$/)
const address = fc
  .tuple(word, fc.constantFrom('example.com', 'example.org'))
  .map(([local, domain]) => `${local}@${domain}`)

const user = fc
  .record(
    {
      userName: address,
      displayName: word,
      active: fc.boolean(),
      externalId: word,
      title: word,
      name: fc.record({ givenName: word, familyName: word }, { requiredKeys: [] }),
      emails: fc.uniqueArray(
        fc.record({
          value: address,
          type: fc.constantFrom('work', 'home', 'other'),
          primary: fc.boolean(),
        }),
        {
          minLength: 0,
          maxLength: 3,
          selector: (email) => email.value,
        },
      ),
      enterprise: fc.record({ employeeNumber: word, department: word }, { requiredKeys: [] }),
    },
    { requiredKeys: ['userName', 'displayName', 'active', 'name', 'emails', 'enterprise'] },
  )
  .map(({ enterprise, ...rest }) => ({
    schemas: [USER, ENTERPRISE],
    id: 'u-1',
    ...rest,
    [ENTERPRISE]: enterprise,
    meta: {
      resourceType: 'User',
      created: '2026-01-01T00:00:00.000Z',
      lastModified: '2026-01-01T00:00:00.000Z',
    },
  }))

const simplePath = fc.constantFrom(
  'userName',
  'displayName',
  'externalId',
  'title',
  'name.givenName',
  'name.familyName',
)
const extensionPath = fc.constantFrom(`${ENTERPRISE}:employeeNumber`, `${ENTERPRISE}:department`)
const op = <T extends string>(...ops: T[]) => fc.constantFrom(...ops)

const operation: fc.Arbitrary<ScimPatchOperation> = fc.oneof(
  fc.record({
    op: op('add', 'replace', 'Replace'),
    path: fc.oneof(simplePath, extensionPath),
    value: word,
  }),
  fc.record({ op: op('replace', 'add'), path: fc.constant('active'), value: fc.boolean() }),
  fc.record({ op: op('remove', 'Remove'), path: fc.oneof(simplePath, extensionPath) }),
  fc.record({
    op: op('replace', 'add'),
    value: fc
      .record({ displayName: word, active: fc.boolean(), title: word }, { requiredKeys: [] })
      .filter((v) => Object.keys(v).length > 0),
  }),
  fc.record({
    op: op('add', 'replace'),
    path: fc.constant('name'),
    value: fc.record({ givenName: word, familyName: word }, { requiredKeys: [] }),
  }),
  fc.record({
    op: op('add'),
    path: fc.constant('emails'),
    value: fc.tuple(address, op('work', 'home')).map(([value, type]) => [{ value, type }]),
  }),
  fc.record({
    op: op('replace'),
    path: fc.constantFrom('emails[type eq "work"].value', 'emails[primary eq true].value'),
    value: address,
  }),
  fc.record({
    op: op('remove'),
    path: fc.constantFrom(
      'emails[type eq "home"]',
      'emails[primary eq false]',
      'emails[type eq "work"].primary',
    ),
  }),
)

/**
 * `noMatch`: the library refused because a path's filter matched nothing (RFC 7644 §3.12 noTarget).
 */
type Outcome = { ok: true; resource: Record<string, unknown> } | { ok: false; noMatch: boolean }

function ours(resource: Record<string, unknown>, operation: ScimPatchOperation): Outcome {
  try {
    return { ok: true, resource: applyPatch(resource, [operation]) }
  } catch {
    return { ok: false, noMatch: false }
  }
}

function theirs(resource: Record<string, unknown>, operation: ScimPatchOperation): Outcome {
  try {
    const patched = scimPatch(structuredClone(resource) as unknown as ScimResource, [operation], {
      mutateDocument: false,
    })
    return { ok: true, resource: patched as unknown as Record<string, unknown> }
  } catch (error) {
    return {
      ok: false,
      noMatch:
        error instanceof NoTarget ||
        (error as Error).constructor.name === 'FilterArrayTargetNotFound',
    }
  }
}

/**
 * Both engines' results in one normal form: an attribute removed or emptied is absent, as RFC 7643
 * §2.5 reads "unassigned" (the library leaves `name: {}` where ours keeps the emptied object, and
 * neither is wrong).
 */
function normal(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(normal)
  if (typeof value !== 'object' || value === null) return value
  const out: Record<string, unknown> = {}
  for (const [key, inner] of Object.entries(value)) {
    const n = normal(inner)
    if (
      n === undefined ||
      (typeof n === 'object' && n !== null && !Array.isArray(n) && Object.keys(n).length === 0)
    )
      continue
    if (Array.isArray(n) && n.length === 0) continue
    out[key] = n
  }
  return out
}

const FILTERED = /^emails\[(type|primary) eq ("work"|true)\]\.value$/

describe('SCIM PATCH: our engine agrees with the scim-patch library', () => {
  it('on generated users and operation sequences, compared after every operation', () => {
    let compared = 0
    let quirks = 0
    fc.assert(
      fc.property(
        user,
        fc.array(operation, { minLength: 1, maxLength: 6 }),
        (start, operations) => {
          let state: Record<string, unknown> = start
          for (const operation of operations) {
            const a = ours(state, operation)
            const b = theirs(state, operation)
            const removing = operation.op.toLowerCase() === 'remove'
            if (!b.ok && b.noMatch && removing) {
              // Deliberate difference 2: a remove whose filter matches nothing is done (nothing to
              // remove) rather than 400 noTarget, so a provider retrying a member removal succeeds.
              if (!a.ok) throw new Error(`ours refused ${JSON.stringify(operation)}`)
              expect(normal(a.resource)).toEqual(normal(state))
              quirks++
              continue
            }
            const filtered = !removing && FILTERED.exec(operation.path ?? '')
            if (!b.ok && b.noMatch && filtered) {
              // Deliberate difference 1 (Entra's quirk): where the RFC answers noTarget, ours
              // creates the element from the filter's eq term, with the value at the sub-attribute.
              if (!a.ok) throw new Error(`ours refused ${JSON.stringify(operation)}`)
              const before = (state.emails as unknown[] | undefined) ?? []
              const after = a.resource.emails as Array<Record<string, unknown>>
              expect(after.slice(0, -1)).toEqual(before)
              expect(after.at(-1)).toEqual({
                [filtered[1]!]: filtered[2] === 'true' ? true : 'work',
                value: operation.value,
              })
              quirks++
              state = a.resource
              continue
            }
            expect(
              a.ok,
              `${JSON.stringify(operation)}: ours ${a.ok ? 'applied' : 'refused'}, the library ${b.ok ? 'applied' : 'refused'}`,
            ).toBe(b.ok)
            if (a.ok && b.ok) {
              expect(normal(a.resource), JSON.stringify(operation)).toEqual(normal(b.resource))
              compared++
              state = a.resource
            }
          }
        },
      ),
      { numRuns: 2000, ...(process.env.PATCH_SEED === 'random' ? {} : { seed: 29 }) },
    )
    // The comparison is about results, not refusals or the quirk: most operations must apply in
    // both.
    expect(compared).toBeGreaterThan(3000)
    expect(quirks).toBeGreaterThan(0)
    console.log(
      `PATCH property: ${compared} operations compared, ${quirks} at a deliberate difference`,
    )
  })
})
