/**
 * An audit event's facts in the page's language; that every fact the service writes has a label
 * in both catalogues is checked beside the service's list (src/modules/audit/fact-keys.test.ts).
 */
import { beforeAll, describe, expect, it } from 'vitest'
import { loadSignedInCatalogues, translate } from '../i18n/i18n'
import { auditFacts } from './audit-facts'

beforeAll(loadSignedInCatalogues)

describe('audit facts in words', () => {
  it('shows a German event in German words', () => {
    const words = {
      language: 'de' as const,
      t: (key: string) => translate('de', key),
      dateTime: (value: string) => value,
    }
    expect(auditFacts(words, { had_state: true, value_redacted: true, session_id: 'x' })).toEqual([
      ['Zwei-Faktor war eingerichtet', 'ja'],
      ['Wert verborgen (geheim)', 'ja'],
    ])
  })
})
