/**
 * Every visible string comes from a message catalogue: en.json and de.json hold the shared words,
 * and each area adds its own file under en/ and de/ (en/links.json, de/links.json …) so areas grow
 * without touching one another's messages. Both languages hold the same keys; a test says so. `{name}` placeholders are filled in; counted messages have `_one`/`_other` variants
 * chosen by Intl.PluralRules. Dates, times and numbers are formatted by Intl in the language shown.
 */
import { createContext, useContext, useMemo, useState, type ReactNode } from 'react'
import de from './de.json'
import en from './en.json'

/** Catalogue keys; a test checks that every key the source uses exists in both catalogues. */
export type MessageKey = string
export type Language = 'en' | 'de'
export const LANGUAGES: Language[] = ['en', 'de']
type Catalogue = Record<string, string>

// The areas the pages before sign-in use are bundled with them; the signed-in areas' files (most of
// the words, in both languages) load with the signed-in frame and the landing pages, so the sign-in
// page stays within its size budget (web/vite.config.ts). The names of each group are listed once.
const areaFiles: Record<Language, Record<string, Catalogue>> = {
  en: import.meta.glob<Catalogue>('./en/{landing,passkeys,policy,reauth,recovery}.json', { eager: true, import: 'default' }),
  de: import.meta.glob<Catalogue>('./de/{landing,passkeys,policy,reauth,recovery}.json', { eager: true, import: 'default' }),
}
const signedInAreaFiles: Record<Language, Record<string, () => Promise<Catalogue>>> = {
  en: import.meta.glob<Catalogue>(['./en/*.json', '!./en/{landing,passkeys,policy,reauth,recovery}.json'], { import: 'default' }),
  de: import.meta.glob<Catalogue>(['./de/*.json', '!./de/{landing,passkeys,policy,reauth,recovery}.json'], { import: 'default' }),
}

function merge(base: Catalogue, areas: Record<string, Catalogue>): Catalogue {
  const merged: Catalogue = { ...base }
  for (const file of Object.keys(areas).sort()) Object.assign(merged, areas[file])
  return merged
}

export const catalogues: Record<Language, Catalogue> = { en: merge(en, areaFiles.en), de: merge(de, areaFiles.de) }

let signedInAreas: Promise<void> | null = null

/** Adds the signed-in areas' messages to both catalogues (once); routes that show them await it first. */
export function loadSignedInCatalogues(): Promise<void> {
  signedInAreas ??= Promise.all(
    LANGUAGES.map(async (language) => {
      const files = signedInAreaFiles[language]
      const loaded = await Promise.all(Object.keys(files).map(async (file) => [file, await files[file]!()] as const))
      Object.assign(catalogues[language], merge({}, Object.fromEntries(loaded)))
    }),
  ).then(
    () => undefined,
    (error: unknown) => {
      signedInAreas = null // a failed chunk load is tried again by the next navigation
      throw error
    },
  )
  return signedInAreas
}

/** The catalogue for a language tag such as `de-AT`; English when we have none. */
export function pickLanguage(tag: string | null | undefined): Language {
  const base = (tag ?? '').toLowerCase().split('-')[0]
  return LANGUAGES.includes(base as Language) ? (base as Language) : 'en'
}

export type Params = Record<string, string | number>

export function translate(language: Language, key: string, params: Params = {}): string {
  let pluralKey = key
  if (typeof params.count === 'number') {
    const form = new Intl.PluralRules(language).select(params.count)
    pluralKey = `${key}_${form}` in catalogues[language] ? `${key}_${form}` : `${key}_other`
  }
  const template = catalogues[language][pluralKey] ?? catalogues.en[pluralKey] ?? key
  return template.replace(/\{(\w+)\}/g, (whole, name: string) => {
    const value = params[name]
    if (value === undefined) return whole
    return typeof value === 'number' ? new Intl.NumberFormat(language).format(value) : value
  })
}

const UNITS: [Intl.RelativeTimeFormatUnit, number][] = [
  ['year', 365 * 24 * 3600],
  ['month', 30 * 24 * 3600],
  ['week', 7 * 24 * 3600],
  ['day', 24 * 3600],
  ['hour', 3600],
  ['minute', 60],
  ['second', 1],
]

export interface I18n {
  language: Language
  // Function-valued properties, not methods: components destructure them (`const { t } = useI18n()`).
  setLanguage: (language: Language) => void
  t: (key: MessageKey, params?: Params) => string
  /**
   * A reason of the API's error envelope as a sentence; for a reason the catalogue lacks, the API's
   * English message to English readers and a general sentence in the reader's language to others.
   */
  reason: (reason: string, fallback?: string) => string
  dateTime: (iso: string) => string
  relative: (iso: string, now?: number) => string
  duration: (seconds: number) => string
}

export function formatters(language: Language): Omit<I18n, 'setLanguage'> {
  const dateTimeFormat = new Intl.DateTimeFormat(language, { dateStyle: 'medium', timeStyle: 'short' })
  const relativeFormat = new Intl.RelativeTimeFormat(language, { numeric: 'auto' })
  return {
    language,
    t: (key, params) => translate(language, key, params),
    reason: (reason, fallback) => {
      const key = `reason.${reason}`
      if (key in catalogues[language]) return translate(language, key)
      // Never English on a page in another language (issue 27).
      return language === 'en' && fallback !== undefined && fallback !== '' ? fallback : translate(language, 'reason.UNKNOWN')
    },
    dateTime: (iso) => dateTimeFormat.format(new Date(iso)),
    relative: (iso, now = Date.now()) => {
      const seconds = (new Date(iso).getTime() - now) / 1000
      for (const [unit, size] of UNITS) {
        if (Math.abs(seconds) >= size || unit === 'second') {
          if (unit === 'second' && Math.abs(seconds) < 45) return relativeFormat.format(0, 'second')
          return relativeFormat.format(Math.round(seconds / size), unit)
        }
      }
      return ''
    },
    duration: (seconds) => {
      const minutes = Math.ceil(seconds / 60)
      if (seconds < 60)
        return new Intl.NumberFormat(language, { style: 'unit', unit: 'second', unitDisplay: 'long' }).format(Math.max(1, Math.ceil(seconds)))
      return new Intl.NumberFormat(language, { style: 'unit', unit: 'minute', unitDisplay: 'long' }).format(minutes)
    },
  }
}

const I18nContext = createContext<I18n | null>(null)

export function I18nProvider({ children }: { children: ReactNode }) {
  const [language, setLanguageState] = useState<Language>(() => pickLanguage(navigator.language))
  const value = useMemo<I18n>(() => {
    document.documentElement.lang = language
    return { ...formatters(language), setLanguage: setLanguageState }
  }, [language])
  return <I18nContext.Provider value={value}>{children}</I18nContext.Provider>
}

export function useI18n(): I18n {
  const value = useContext(I18nContext)
  if (value === null) throw new Error('useI18n outside I18nProvider')
  return value
}
