/**
 * Every fact the service can write into an audit event (AUDIT_FACT_KEYS, which `recordAudit`'s
 * type holds it to) has a label in the console's English and German catalogues, so the audit page
 * never shows a raw key. The catalogues are read as the data files they are: the console and the
 * service share no code.
 */
import fs from 'node:fs'
import { describe, expect, it } from 'vitest'
import { AUDIT_FACT_KEYS } from './fact-keys.js'

const catalogue = (language: string): Record<string, string> =>
  JSON.parse(
    fs.readFileSync(
      new URL(`../../../web/src/i18n/${language}/admin.json`, import.meta.url),
      'utf8',
    ),
  ) as Record<string, string>

/** The console shows no line for an id (web/src/admin/audit-facts.ts): no label needed. */
const isId = (key: string) => /(^|_)ids?$/.test(key)

describe('audit facts in the console’s words', () => {
  it.each(['en', 'de'])('every fact key the service writes has a label in %s', (language) => {
    const labels = catalogue(language)
    const unlabelled = AUDIT_FACT_KEYS.filter(
      (key) => !isId(key) && !(`admin.audit.fact.${key}` in labels),
    )
    expect(unlabelled, `fact keys without a ${language} label`).toEqual([])
  })
})
