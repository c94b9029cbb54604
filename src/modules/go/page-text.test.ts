/**
 * The go pages write times and counts as the console does with Intl (web/src/i18n/i18n.tsx):
 * held here to Intl's own output over any moment and count.
 */
import fc from 'fast-check'
import { describe, expect, it } from 'vitest'
import { momentText, numberText, type PageLanguage } from './page-text.js'

const LANGUAGES: PageLanguage[] = ['en', 'de']
const NUMBER_LOCALES: Record<PageLanguage, string> = { en: 'en-GB', de: 'de-DE' }

describe('page texts against Intl', () => {
  it('writes a moment as Intl writes a medium date and short time in UTC', () => {
    const formats = LANGUAGES.map(
      (lang) =>
        [
          lang,
          new Intl.DateTimeFormat(lang, {
            dateStyle: 'medium',
            timeStyle: 'short',
            timeZone: 'UTC',
          }),
        ] as const,
    )
    const moments = fc.date({
      min: new Date('1970-01-01T00:00:00Z'),
      max: new Date('9999-12-31T23:59:59Z'),
      noInvalidDate: true,
    })
    fc.assert(
      fc.property(moments, (at) => {
        for (const [lang, format] of formats)
          expect(momentText(lang, at.toISOString())).toBe(`${format.format(at)} UTC`)
      }),
      { numRuns: 2000 },
    )
    expect(momentText('en', '2026-11-27T14:03:09.000Z')).toBe('Nov 27, 2026, 2:03 PM UTC')
    expect(momentText('de', '2026-01-05T00:07:00.000Z')).toBe('05.01.2026, 00:07 UTC')
  })

  it('groups a count as Intl groups it', () => {
    const formats = LANGUAGES.map(
      (lang) => [lang, new Intl.NumberFormat(NUMBER_LOCALES[lang])] as const,
    )
    fc.assert(
      fc.property(fc.oneof(fc.integer(), fc.nat({ max: 20_000 })), (count) => {
        for (const [lang, format] of formats)
          expect(numberText(lang, count)).toBe(format.format(count))
      }),
      { numRuns: 2000 },
    )
    expect(numberText('en', 1234567)).toBe('1,234,567')
    expect(numberText('de', 1234)).toBe('1.234')
  })
})
