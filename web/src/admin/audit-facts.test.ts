/**
 * Every fact the service can write into an audit event (AUDIT_FACT_KEYS, which `recordAudit`'s
 * type holds it to) is shown by its label in English and in German — never as the raw key — or,
 * for an id, not at all.
 */
import { beforeAll, describe, expect, it } from 'vitest'
import { AUDIT_FACT_KEYS } from '../../../src/modules/audit/fact-keys'
import { catalogues, LANGUAGES, loadSignedInCatalogues, translate } from '../i18n/i18n'
import { auditFacts } from './audit-facts'

beforeAll(loadSignedInCatalogues)

describe('audit facts in words', () => {
  for (const language of LANGUAGES) {
    it(`labels every fact key the service emits in ${language}`, () => {
      const words = {
        language,
        t: (key: string) => translate(language, key),
        dateTime: (value: string) => value,
      }
      const unlabelled = AUDIT_FACT_KEYS.filter((key) => {
        const facts = auditFacts(words, { [key]: 1 })
        // An id is left to the raw details: no line, no label needed.
        if (facts.length === 0) return false
        return !(`admin.audit.fact.${key}` in catalogues[language])
      })
      expect(unlabelled, `fact keys without a ${language} label`).toEqual([])
    })
  }

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
