/** The role table of docs/API.md#who-may-do-what, cell by cell. */
import { describe, expect, it } from 'vitest'
import { AppError } from '../../errors.js'
import { assertMayChangeRole, can, ROLES, type Permission, type Role } from './roles.js'

const TABLE: Record<Permission, Record<Role, boolean>> = {
  read: { owner: true, admin: true, member: true },
  update: { owner: true, admin: true, member: false },
  delete: { owner: true, admin: false, member: false },
  billing: { owner: true, admin: false, member: false },
  manage_members: { owner: true, admin: true, member: false },
  manage_invitations: { owner: true, admin: true, member: false },
  manage_owners: { owner: true, admin: false, member: false },
  share_links: { owner: true, admin: true, member: true },
  manage_links: { owner: true, admin: true, member: false },
}

describe('the organization role table', () => {
  it.each(Object.entries(TABLE))('%s', (permission, expected) => {
    for (const role of ROLES) expect(can(role, permission as Permission), role).toBe(expected[role])
  })

  it('involves the owner permission whenever an owner is on either side of a role change', () => {
    const forbidden = (actor: Role, from: Role | null, to: Role | null) => {
      try {
        assertMayChangeRole(actor, from, to)
        return false
      } catch (error) {
        expect(error).toBeInstanceOf(AppError)
        expect((error as AppError).reason).toBe('FORBIDDEN')
        return true
      }
    }
    for (const [from, to] of [
      [null, 'owner'],
      ['owner', 'admin'],
      ['owner', null],
      ['member', 'owner'],
    ] as const) {
      expect(forbidden('admin', from, to), `${from} → ${to}`).toBe(true)
      expect(forbidden('owner', from, to), `${from} → ${to}`).toBe(false)
    }
    for (const [from, to] of [
      [null, 'admin'],
      ['member', 'admin'],
      ['admin', 'member'],
      ['admin', null],
    ] as const) {
      expect(forbidden('admin', from, to), `${from} → ${to}`).toBe(false)
      expect(forbidden('member', from, to), `${from} → ${to}`).toBe(true)
    }
  })
})
