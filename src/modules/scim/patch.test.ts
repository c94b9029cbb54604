import { describe, expect, it } from 'vitest'
import { ScimError } from './errors.js'
import { applyPatch, parsePatchPath } from './patch.js'

const ENTERPRISE = 'urn:ietf:params:scim:schemas:extension:enterprise:2.0:User'

describe('SCIM PATCH engine', () => {
  it('Entra: Add on a filtered path whose element does not exist yet creates it from the filter', () => {
    const resource = {
      userName: 'a@example.com',
      emails: [{ value: 'home@example.com', type: 'home' }],
    }
    const patched = applyPatch(resource, [
      { op: 'Add', path: 'emails[type eq "work"].value', value: 'work@example.com' },
    ])
    expect(patched.emails).toEqual([
      { value: 'home@example.com', type: 'home' },
      { type: 'work', value: 'work@example.com' },
    ])
    const fromNothing = applyPatch({ userName: 'a@example.com' }, [
      { op: 'add', path: 'emails[type eq "work"].value', value: 'w@example.com' },
    ])
    expect(fromNothing.emails).toEqual([{ type: 'work', value: 'w@example.com' }])
    expect(resource.emails).toHaveLength(1)
  })

  it('op in any case; path and attribute names ignore case', () => {
    const patched = applyPatch({ displayName: 'x', active: true }, [
      { op: 'REPLACE', path: 'DisplayName', value: 'y' },
      { op: 'Remove', path: 'ACTIVE' },
    ])
    expect(patched).toEqual({ displayName: 'y' })
  })

  it('path-less replace: dotted keys, URN-qualified keys and a whole extension object', () => {
    const patched = applyPatch({ name: { givenName: 'a' } }, [
      { op: 'Replace', value: { 'name.familyName': 'F', [`${ENTERPRISE}:department`]: 'D' } },
      { op: 'add', value: { [ENTERPRISE]: { employeeNumber: '7' } } },
    ])
    expect(patched).toEqual({
      name: { givenName: 'a', familyName: 'F' },
      [ENTERPRISE]: { department: 'D', employeeNumber: '7' },
    })
  })

  it('remove by filter removes only the matching elements; add on a multi-valued attribute appends', () => {
    const start = {
      emails: [
        { value: 'a', type: 'work' },
        { value: 'b', type: 'home' },
      ],
    }
    expect(applyPatch(start, [{ op: 'remove', path: 'emails[type eq "home"]' }]).emails).toEqual([
      { value: 'a', type: 'work' },
    ])
    expect(
      applyPatch(start, [{ op: 'add', path: 'emails', value: [{ value: 'c' }] }]).emails,
    ).toHaveLength(3)
  })

  it('replace (and add) on a complex attribute set the sub-attributes sent and keep the others (RFC 7644 §3.5.2.3; found by the property test)', () => {
    const start = { name: { givenName: 'Ada', familyName: 'Byron', formatted: 'Ada Byron' } }
    expect(
      applyPatch(start, [{ op: 'replace', path: 'name', value: { familyName: 'Lovelace' } }]).name,
    ).toEqual({
      givenName: 'Ada',
      familyName: 'Lovelace',
      formatted: 'Ada Byron',
    })
    expect(
      applyPatch(start, [{ op: 'Replace', value: { name: { FamilyName: 'King' } } }]).name,
    ).toEqual({
      givenName: 'Ada',
      familyName: 'King',
      formatted: 'Ada Byron',
    })
  })

  it('refuses what cannot be applied with the RFC 7644 scimType', () => {
    const refuse = (operations: unknown, scimType: string) => {
      try {
        applyPatch({}, operations)
        throw new Error('applied')
      } catch (error) {
        expect(error).toBeInstanceOf(ScimError)
        expect((error as ScimError).scimType).toBe(scimType)
      }
    }
    refuse([], 'invalidSyntax')
    refuse([{ op: 'copy', path: 'a', value: 1 }], 'invalidSyntax')
    refuse([{ op: 'remove' }], 'noTarget')
    refuse([{ op: 'replace', value: 'not an object' }], 'invalidValue')
    refuse([{ op: 'add', path: 'emails[type eq "work"', value: 'x' }], 'invalidPath')
    refuse([{ op: 'add', path: 'emails[type zz "work"]', value: 'x' }], 'invalidFilter')
    expect(() => parsePatchPath('a.b.c')).toThrow(ScimError)
  })
})
