/**
 * Every visible string comes from a message catalogue: en.json and de.json hold the shared words,
 * and each area adds its own file under en/ and de/ (en/links.json, de/links.json …) so areas grow
 * without touching one another's messages. Both languages hold the same keys; a test says so.
 * `{name}` placeholders are filled in; counted messages have `_one`/`_other` variants chosen by
 * Intl.PluralRules. Dates, times and numbers are formatted by Intl in the language shown.
 */
import { createContext, useCallback, useContext, useMemo, useState, type ReactNode } from 'react'

/** Catalogue keys; a test checks that every key the source uses exists in both catalogues. */
export type MessageKey = string
export type Language = 'en' | 'de'
export const LANGUAGES: Language[] = ['en', 'de']
type Catalogue = Record<string, string>

// The sign-in page loads one language, not both: the shared words of the person's
// language arrive as one small chunk before the first render (main.tsx). Each area's words load
// when a page of that area needs them: all of them, in both languages, with the signed-in frame,
// the landing and the recovery pages; passkeys with the sign-in page's passkey button. So the
// sign-in page stays within its size budget (web/vite.config.ts counts the larger language's
// chunk).
const baseFiles: Record<Language, () => Promise<Catalogue>> = {
  en: () => import('./en.json').then((module) => module.default),
  de: () => import('./de.json').then((module) => module.default),
}
const areaFiles: Record<Language, Record<string, () => Promise<Catalogue>>> = {
  en: import.meta.glob<Catalogue>('./en/*.json', { import: 'default' }),
  de: import.meta.glob<Catalogue>('./de/*.json', { import: 'default' }),
}

/**
 * Filled in place as languages and areas load (tests and callers keep references to these objects).
 */
export const catalogues: Record<Language, Catalogue> = { en: {}, de: {} }

const loads = new Map<string, Promise<void>>()

/** Loads a file once (a failed chunk load is tried again next time) and adds it to its language. */
function loadOnce(
  id: string,
  language: Language,
  load: () => Promise<Catalogue>,
  after?: Promise<void>,
): Promise<void> {
  let pending = loads.get(id)
  if (pending === undefined) {
    pending = Promise.all([load(), after]).then(
      ([file]) => void Object.assign(catalogues[language], file),
      (error: unknown) => {
        loads.delete(id)
        throw error
      },
    )
    loads.set(id, pending)
  }
  return pending
}

/** The shared words of one language; the console renders only languages loaded so. */
export function loadLanguage(language: Language): Promise<void> {
  return loadOnce(language, language, baseFiles[language])
}

/**
 * The words of some areas (file names under en/ and de/, such as `passkeys`), in both languages.
 */
export function loadAreas(names: string[]): Promise<void> {
  return Promise.all(
    LANGUAGES.flatMap((language) =>
      names.map((name) => {
        const file = `./${language}/${name}.json`
        const load = areaFiles[language][file]
        if (load === undefined) throw new Error(`no catalogue ${file}`)
        // After the shared words: an area's key wins over them, as it always did.
        return loadOnce(file, language, load, loadLanguage(language))
      }),
    ),
  ).then(() => undefined)
}

/**
 * Both languages and every area (once); the signed-in frame, landing and recovery routes await it
 * first.
 */
export function loadSignedInCatalogues(): Promise<void> {
  return loadAreas(Object.keys(areaFiles.en).map((file) => file.replace(/^\.\/en\/|\.json$/g, '')))
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

const DAY = 24 * 3600

/**
 * The value and unit a relative time is said in: days up to two months ("in 30 days", never "in 4
 * weeks" for a 30-day token), then months, then years.
 */
export function relativeParts(seconds: number): [number, Intl.RelativeTimeFormatUnit] {
  const size = Math.abs(seconds)
  if (size < 45) return [0, 'second']
  const [unit, length]: [Intl.RelativeTimeFormatUnit, number] =
    size >= 365 * DAY
      ? ['year', 365 * DAY]
      : size >= 60 * DAY
        ? ['month', 30 * DAY]
        : size >= DAY
          ? ['day', DAY]
          : size >= 3600
            ? ['hour', 3600]
            : ['minute', 60]
  return [Math.round(seconds / length), unit]
}

export interface I18n {
  language: Language
  // Function-valued properties, not methods: components destructure them (`const { t } =
  // useI18n()`).
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
  const dateTimeFormat = new Intl.DateTimeFormat(language, {
    dateStyle: 'medium',
    timeStyle: 'short',
  })
  const relativeFormat = new Intl.RelativeTimeFormat(language, { numeric: 'auto' })
  return {
    language,
    t: (key, params) => translate(language, key, params),
    reason: (reason, fallback) => {
      const key = `reason.${reason}`
      if (key in catalogues[language]) return translate(language, key)
      // Never English on a page in another language.
      return language === 'en' && fallback !== undefined && fallback !== ''
        ? fallback
        : translate(language, 'reason.UNKNOWN')
    },
    dateTime: (iso) => dateTimeFormat.format(new Date(iso)),
    relative: (iso, now = Date.now()) => {
      const [value, unit] = relativeParts((new Date(iso).getTime() - now) / 1000)
      return relativeFormat.format(value, unit)
    },
    duration: (seconds) => {
      const minutes = Math.ceil(seconds / 60)
      if (seconds < 60)
        return new Intl.NumberFormat(language, {
          style: 'unit',
          unit: 'second',
          unitDisplay: 'long',
        }).format(Math.max(1, Math.ceil(seconds)))
      return new Intl.NumberFormat(language, {
        style: 'unit',
        unit: 'minute',
        unitDisplay: 'long',
      }).format(minutes)
    },
  }
}

const I18nContext = createContext<I18n | null>(null)

export function I18nProvider({ children }: { children: ReactNode }) {
  const [language, setLanguageState] = useState<Language>(() => pickLanguage(navigator.language))
  // A language is shown once its catalogue has loaded (main.tsx loads the browser's before the
  // first render).
  const setLanguage = useCallback(
    (next: Language) =>
      void loadLanguage(next).then(
        () => setLanguageState(next),
        // The chunk did not load: keep the language shown; the next change tries again
        () => undefined,
      ),
    [],
  )
  const value = useMemo<I18n>(() => {
    document.documentElement.lang = language
    return { ...formatters(language), setLanguage }
  }, [language, setLanguage])
  return <I18nContext.Provider value={value}>{children}</I18nContext.Provider>
}

export function useI18n(): I18n {
  const value = useContext(I18nContext)
  if (value === null) throw new Error('useI18n outside I18nProvider')
  return value
}
