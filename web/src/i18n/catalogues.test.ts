/**
 * Both languages hold the same keys (core file plus every area file), and every key the console's
 * source uses exists in them.
 */
import fs from 'node:fs'
import path from 'node:path'
import { beforeAll, describe, expect, it } from 'vitest'
import { catalogues, loadSignedInCatalogues, translate } from './i18n'

const { en, de } = catalogues

beforeAll(loadSignedInCatalogues)

const SOURCE = path.resolve(import.meta.dirname, '..')

function sourceFiles(dir: string): string[] {
  return fs.readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const full = path.join(dir, entry.name)
    if (entry.isDirectory()) return sourceFiles(full)
    return /\.tsx?$/.test(entry.name) &&
      !entry.name.endsWith('.test.ts') &&
      !entry.name.endsWith('.d.ts')
      ? [full]
      : []
  })
}

describe('message catalogues', () => {
  it('English and German have exactly the same keys', () => {
    const english = Object.keys(en).sort()
    const german = Object.keys(de).sort()
    expect(
      english.filter((key) => !german.includes(key)),
      'missing in German',
    ).toEqual([])
    expect(
      german.filter((key) => !english.includes(key)),
      'missing in English',
    ).toEqual([])
  })

  it('no message is empty, and German is not a copy of English where words differ', () => {
    for (const [key, value] of [...Object.entries(en), ...Object.entries(de)])
      expect(value.trim(), key).not.toBe('')
    const same = Object.keys(en).filter(
      (key) => (en as Record<string, string>)[key] === (de as Record<string, string>)[key],
    )
    // Names and words both languages share; anything else left in English is an untranslated
    // string.
    expect(same.sort()).toEqual(
      [
        'app.name',
        'field.name',
        'mfa.code',
        'tokens.name',
        // Links and the palette.
        'links.importFormat',
        'links.keywordFirefox',
        'links.suggestedSlug',
        'links.title',
        'palette.links',
        'palette.pageLinks',
        // Passkeys.
        'passkeys.name',
        'passkeys.title',
        // Administration: words German uses as they are.
        'nav.admin.teams',
        'admin.teams.title',
        'admin.audit.fact.teams',
        'admin.audit.fact.port',
        'admin.audit.fact.secure',
        'admin.audit.fact.scopes',
        'admin.users.status',
        'admin.users.admin',
        'admin.smtp.port',
        'admin.provider.scopes',
        // The security page's sign-in methods.
        'accountSecurity.method.passkey',
      ].sort(),
    )
  })

  it('the same placeholders in both languages', () => {
    const placeholders = (text: string) => [...text.matchAll(/\{(\w+)\}/g)].map((m) => m[1]).sort()
    for (const key of Object.keys(en)) {
      expect(placeholders((de as Record<string, string>)[key]!), key).toEqual(
        placeholders((en as Record<string, string>)[key]!),
      )
    }
  })

  it('every key the source uses is in the catalogues (plurals as _one and _other)', () => {
    const used = new Set<string>()
    for (const file of sourceFiles(SOURCE)) {
      for (const match of fs.readFileSync(file, 'utf8').matchAll(/\bt\(\s*'([a-zA-Z0-9_.]+)'/g))
        used.add(match[1]!)
    }
    expect(used.size).toBeGreaterThan(50)
    const missing = [...used].filter(
      (key) => !(key in en) && !(`${key}_one` in en && `${key}_other` in en),
    )
    expect(missing).toEqual([])
  })

  it('fills placeholders, chooses plural forms by Intl.PluralRules and formats numbers per language', () => {
    expect(translate('en', 'security.backupRemaining', { count: 1 })).toBe('1 backup code left.')
    expect(translate('en', 'security.backupRemaining', { count: 7 })).toBe('7 backup codes left.')
    expect(translate('de', 'security.backupRemaining', { count: 1 })).toBe('Noch 1 Backup-Code.')
    expect(translate('de', 'tokens.days', { count: 3650 })).toBe('In 3.650 Tagen')
    expect(translate('en', 'tokens.days', { count: 3650 })).toBe('In 3,650 days')
    expect(translate('de', 'tokens.revokeTitle', { name: 'deploy-ci' })).toBe(
      'Token deploy-ci widerrufen?',
    )
  })
})
