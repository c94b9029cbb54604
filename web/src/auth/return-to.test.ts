import { describe, expect, it } from 'vitest'
import { safeReturnTo } from './return-to'

describe('safeReturnTo', () => {
  it.each([
    ['/', '/'],
    ['/go/handbook', '/go/handbook'],
    ['/go/team/handbook?x=1#y', '/go/team/handbook?x=1#y'],
    ['/account', '/account'],
    ['/account/security', '/account/security'],
    ['/invitations/accept?token=abc', '/invitations/accept?token=abc'],
    ['/links?q=a', '/links?q=a'],
    ['/account/../account/tokens', '/account/tokens'],
  ])('keeps the console or go-link path %s', (input, expected) => {
    expect(safeReturnTo(input)).toBe(expected)
  })

  it.each([
    'https://evil.example/',
    '//evil.example/go/x',
    '/\\evil.example',
    '\\\\evil.example',
    'javascript:alert(1)',
    'evil.example/go/x',
    '/go/',
    '/api/users/me',
    '/api/auth/logout',
    '/account/../api/tokens',
    '/%2e%2e/api/x',
    '/login',
    '/login/mfa',
    '/setup',
    '/accounts',
    '/go\t/x',
    '/go/x\n',
    ' /go/x',
    '',
    'x'.repeat(3000),
  ])('ignores %j', (input) => {
    expect(safeReturnTo(input)).toBeNull()
  })

  it('ignores what is not a string', () => {
    expect(safeReturnTo(undefined)).toBeNull()
    expect(safeReturnTo(['/go/x'])).toBeNull()
    expect(safeReturnTo(42)).toBeNull()
  })
})
