/**
 * What the command palette offers besides search results: the console's pages and actions. One
 * list, by path, so an area adds its pages here. Some paths belong to areas built on other branches
 * (organizations, administration, account activity); they are plain strings, not typed routes.
 */
export interface PaletteEntry {
  id: string
  kind: 'page' | 'action'
  /** Catalogue key of the label. */
  label: string
  /** Extra words it is found by, in English and German (not shown). */
  keywords: string
  href: string
  adminOnly?: boolean
  /** Left out when it does not apply (enabling two-factor authentication that is on). */
  unlessTwoFactor?: boolean
}

export const PALETTE_ENTRIES: readonly PaletteEntry[] = [
  {
    id: 'create-link',
    kind: 'action',
    label: 'palette.createLink',
    keywords: 'new add link go-link neu anlegen',
    href: '/links?new=true',
  },
  {
    id: 'enable-2fa',
    kind: 'action',
    label: 'palette.enableTwoFactor',
    keywords: '2fa mfa totp authenticator two-factor zwei-faktor',
    href: '/account/security',
    unlessTwoFactor: true,
  },
  {
    id: 'import',
    kind: 'action',
    label: 'palette.importBookmarks',
    keywords: 'import export bookmarks lesezeichen',
    href: '/links/import-export',
  },
  {
    id: 'links',
    kind: 'page',
    label: 'palette.pageLinks',
    keywords: 'links go home start',
    href: '/links',
  },
  {
    id: 'preferences',
    kind: 'page',
    label: 'palette.pagePreferences',
    keywords: 'go-link preferences ambiguous chooser vorlieben',
    href: '/links/preferences',
  },
  {
    id: 'keyword',
    kind: 'page',
    label: 'palette.pageKeyword',
    keywords: 'browser search keyword address bar suchmaschine',
    href: '/links/go-keyword',
  },
  {
    id: 'organizations',
    kind: 'page',
    label: 'palette.pageOrganizations',
    keywords: 'organizations teams members organisationen',
    href: '/orgs',
  },
  {
    id: 'profile',
    kind: 'page',
    label: 'palette.pageProfile',
    keywords: 'profile name language theme profil sprache',
    href: '/account',
  },
  {
    id: 'security',
    kind: 'page',
    label: 'palette.pageSecurity',
    keywords: 'security password sessions sicherheit passwort',
    href: '/account/security',
  },
  {
    id: 'tokens',
    kind: 'page',
    label: 'palette.pageTokens',
    keywords: 'api tokens keys schlüssel',
    href: '/account/tokens',
  },
  {
    id: 'activity',
    kind: 'page',
    label: 'palette.pageActivity',
    keywords: 'activity history audit aktivität',
    href: '/account/activity',
  },
  {
    id: 'admin-users',
    kind: 'page',
    label: 'palette.pageAdminUsers',
    keywords: 'admin users benutzer',
    href: '/admin/users',
    adminOnly: true,
  },
  {
    id: 'admin-teams',
    kind: 'page',
    label: 'palette.pageAdminTeams',
    keywords: 'admin teams',
    href: '/admin/teams',
    adminOnly: true,
  },
  {
    id: 'admin-settings',
    kind: 'page',
    label: 'palette.pageAdminSettings',
    keywords: 'admin settings smtp email ai einstellungen',
    href: '/admin/settings',
    adminOnly: true,
  },
  {
    id: 'admin-providers',
    kind: 'page',
    label: 'palette.pageAdminProviders',
    keywords: 'admin identity providers oidc sso anmeldung',
    href: '/admin/providers',
    adminOnly: true,
  },
  {
    id: 'admin-provisioning',
    kind: 'page',
    label: 'palette.pageAdminProvisioning',
    keywords: 'admin provisioning scim okta entra bereitstellung',
    href: '/admin/provisioning',
    adminOnly: true,
  },
  {
    id: 'admin-audit',
    kind: 'page',
    label: 'palette.pageAdminAudit',
    keywords: 'admin audit log protokoll',
    href: '/admin/audit',
    adminOnly: true,
  },
]

/** What decides whether an entry applies to this person. */
export interface PaletteContext {
  isAdmin: boolean
  /** Undefined while unknown: the entry is left out until the API has said. */
  twoFactorEnabled: boolean | undefined
}

/**
 * The entries a person may use and that apply, matching every word of the text in the label or
 * keywords.
 */
export function matchEntries(
  text: string,
  context: PaletteContext,
  label: (entry: PaletteEntry) => string,
): PaletteEntry[] {
  const words = text.toLowerCase().split(/\s+/).filter(Boolean)
  return PALETTE_ENTRIES.filter((entry) => {
    if (entry.adminOnly && !context.isAdmin) return false
    if (entry.unlessTwoFactor && context.twoFactorEnabled !== false) return false
    const haystack = `${label(entry)} ${entry.keywords}`.toLowerCase()
    return words.every((word) => haystack.includes(word))
  })
}
