import { describe, expect, it } from 'vitest'
import { catalogueOf, choicesOf, permissionsOf } from './token-catalogue'

describe('the token catalogue', () => {
  it('groups operations by the bearer scope the document states, leaving out session-only and public ones', () => {
    const catalogue = catalogueOf({
      paths: {
        '/api/links': {
          get: {
            summary: 'List links',
            security: [{ bearerAuth: ['links:read'] }, { cookieAuth: [] }],
          },
          post: {
            summary: 'Create a link',
            security: [{ bearerAuth: ['links:write'] }, { cookieAuth: [] }],
          },
        },
        '/api/users/me/sessions': {
          get: { summary: 'Sessions', security: [{ bearerAuth: [] }, { cookieAuth: [] }] },
        },
        '/api/auth/login': { post: { summary: 'Sign in', security: [] } },
      },
    })
    expect(catalogue).toEqual({
      links: [
        { method: 'GET', path: '/api/links', summary: 'List links', kind: 'read' },
        { method: 'POST', path: '/api/links', summary: 'Create a link', kind: 'write' },
      ],
    })
  })

  it('turns per-area choices into permissions and back', () => {
    expect(permissionsOf({ links: 'read', organizations: 'write', billing: 'none' })).toEqual([
      'links:read',
      'organizations:write',
    ])
    expect(choicesOf(['links:read', 'organizations:write', 'organizations:read'])).toEqual({
      links: 'read',
      organizations: 'write',
    })
  })
})
