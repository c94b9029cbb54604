/**
 * The palette offers only what applies — administration to administrators, enabling two-factor
 * authentication while it is off.
 */
import { describe, expect, it } from 'vitest'
import { matchEntries, PALETTE_ENTRIES } from './entries'

const ids = (text: string, isAdmin: boolean, twoFactorEnabled: boolean | undefined) =>
  matchEntries(text, { isAdmin, twoFactorEnabled }, (entry) => entry.label).map((entry) => entry.id)

describe('palette entries', () => {
  it('offers enabling two-factor authentication only while it is off (and not before the API has said)', () => {
    expect(ids('two-factor', false, false)).toContain('enable-2fa')
    expect(ids('two-factor', false, true)).not.toContain('enable-2fa')
    expect(ids('two-factor', false, undefined)).not.toContain('enable-2fa')
  })

  it('offers the administration to administrators only', () => {
    const adminOnly = PALETTE_ENTRIES.filter((entry) => entry.adminOnly).map((entry) => entry.id)
    expect(adminOnly.length).toBeGreaterThan(0)
    expect(ids('', false, false).filter((id) => adminOnly.includes(id))).toEqual([])
    expect(ids('', true, false)).toEqual(expect.arrayContaining(adminOnly))
  })
})
