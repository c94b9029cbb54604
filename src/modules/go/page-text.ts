/**
 * The words of the /go pages in English and German, and how a request picks its
 * language and theme: the signed-in person's settings first, then the browser's Accept-Language
 * (RFC 9110 §12.5.4) and `prefers-color-scheme`. Pages are rendered on the server with no script,
 * so the choice is made here, once per page.
 */
export type PageLanguage = 'en' | 'de'
export type PageTheme = 'auto' | 'light' | 'dark'

export interface PageContext {
  lang: PageLanguage
  theme: PageTheme
}

export const DEFAULT_CONTEXT: PageContext = { lang: 'en', theme: 'auto' }

const SUPPORTED: readonly PageLanguage[] = ['en', 'de']

function supported(tag: string): PageLanguage | null {
  const primary = tag.trim().toLowerCase().split('-')[0]
  return SUPPORTED.find((lang) => lang === primary) ?? null
}

/**
 * The best of en/de in an Accept-Language header (highest q, then order); null when neither is
 * named.
 */
export function languageFromHeader(header: string | undefined): PageLanguage | null {
  if (header === undefined || header.length > 1000) return null
  let best: { lang: PageLanguage; q: number } | null = null
  for (const part of header.split(',')) {
    const [tag = '', ...params] = part.split(';')
    const lang = supported(tag)
    if (lang === null) continue
    const qParam = params.map((param) => param.trim()).find((param) => param.startsWith('q='))
    const q = qParam === undefined ? 1 : Number(qParam.slice(2))
    if (!Number.isFinite(q) || q <= 0) continue
    if (best === null || q > best.q) best = { lang, q }
  }
  return best?.lang ?? null
}

/**
 * The person's own settings win; without them (signed out, or "follow the browser") the request's
 * headers.
 */
export function pageContextOf(
  user: { language: string; theme: string } | null,
  acceptLanguage: string | undefined,
): PageContext {
  const lang =
    (user === null ? null : supported(user.language)) ?? languageFromHeader(acceptLanguage) ?? 'en'
  const theme =
    user !== null && (user.theme === 'light' || user.theme === 'dark') ? user.theme : 'auto'
  return { lang, theme }
}

const EN = {
  missTitle: 'go/{slug} does not exist yet',
  missText: 'No link you can see has this name, or none of them forwards.',
  create: 'Create go/{slug}',
  similar: 'Similar go-links',
  console: 'Open the console',
  badTitle: 'This is not a go-link',
  badText: 'A go-link name has 1–64 letters, digits, underscores or dashes.',
  chooseText: 'Several links are called go/{slug}. Which one?',
  remember: 'Open and remember this choice',
  personal: 'Personal',
  organization: 'Organization:',
  owner: 'Owner:',
  ownerYou: 'you',
  ownerOrganization: 'organization',
  dates: 'Created {created}, last changed {updated}',
  edit: 'Edit in the console',
  clicksOne: '1 click in the last 30 days',
  clicksMany: '{count} clicks in the last 30 days',
  refusedTitle: 'go/{slug} cannot open this address',
  'refusal.bad-encoding': 'The address after the link name is not validly percent-encoded.',
  'refusal.dot-segment':
    'The address after the link name may not contain "." or ".." segments, however they are encoded.',
  'refusal.other-host':
    "The link's template would lead to another site or scheme, so it is not followed.",
  'refusal.too-long': 'The address this link would open is too long.',
  'refusal.invalid': 'The address this link would open is not a valid web address.',
  openSlug: 'Open go/{slug}',
  expiredTitle: 'This form has expired',
  expiredText: 'Open the go-link again and make your choice there.',
  unavailableTitle: 'That link is no longer available',
  unavailableText: 'It was removed, renamed or stopped forwarding.',
  chooseAgain: 'Choose again for go/{slug}',
}

export type TextKey = keyof typeof EN

const DE: Record<TextKey, string> = {
  missTitle: 'go/{slug} gibt es noch nicht',
  missText: 'Kein Link, den Sie sehen können, hat diesen Namen, oder keiner davon leitet weiter.',
  create: 'go/{slug} anlegen',
  similar: 'Ähnliche Go-Links',
  console: 'Zur Konsole',
  badTitle: 'Das ist kein Go-Link',
  badText:
    'Der Name eines Go-Links besteht aus 1–64 Buchstaben, Ziffern, Unterstrichen oder Bindestrichen.',
  chooseText: 'Mehrere Links heißen go/{slug}. Welcher soll es sein?',
  remember: 'Öffnen und diese Wahl merken',
  personal: 'Persönlich',
  organization: 'Organisation:',
  owner: 'Gehört:',
  ownerYou: 'Ihnen',
  ownerOrganization: 'der Organisation',
  dates: 'Angelegt am {created}, zuletzt geändert am {updated}',
  edit: 'In der Konsole bearbeiten',
  clicksOne: '1 Klick in den letzten 30 Tagen',
  clicksMany: '{count} Klicks in den letzten 30 Tagen',
  refusedTitle: 'go/{slug} kann diese Adresse nicht öffnen',
  'refusal.bad-encoding': 'Die Adresse nach dem Linknamen ist nicht gültig prozentkodiert.',
  'refusal.dot-segment':
    'Die Adresse nach dem Linknamen darf keine Abschnitte „.“ oder „..“ enthalten, wie auch immer sie kodiert sind.',
  'refusal.other-host':
    'Die Vorlage des Links würde zu einer anderen Website oder einem anderen Schema führen; sie wird daher nicht geöffnet.',
  'refusal.too-long': 'Die Adresse, die dieser Link öffnen würde, ist zu lang.',
  'refusal.invalid': 'Die Adresse, die dieser Link öffnen würde, ist keine gültige Webadresse.',
  openSlug: 'go/{slug} öffnen',
  expiredTitle: 'Dieses Formular ist abgelaufen',
  expiredText: 'Öffnen Sie den Go-Link erneut und treffen Sie dort Ihre Wahl.',
  unavailableTitle: 'Dieser Link ist nicht mehr verfügbar',
  unavailableText: 'Er wurde entfernt, umbenannt oder leitet nicht mehr weiter.',
  chooseAgain: 'Erneut wählen für go/{slug}',
}

const CATALOGUES: Record<PageLanguage, Record<TextKey, string>> = { en: EN, de: DE }

/** The plain (unescaped) text; the caller escapes it for HTML. */
export function text(
  lang: PageLanguage,
  key: TextKey,
  values: Record<string, string | number> = {},
): string {
  return CATALOGUES[lang][key].replace(/\{(\w+)\}/g, (whole, name: string) =>
    name in values ? String(values[name]) : whole,
  )
}

const MONTHS = ['Jan', 'Feb', 'Mar', 'Apr', 'May', 'Jun', 'Jul', 'Aug', 'Sep', 'Oct', 'Nov', 'Dec']
const SEPARATORS: Record<PageLanguage, string> = { en: ',', de: '.' }
const two = (n: number) => String(n).padStart(2, '0')

/**
 * A stored time as the console writes it (web/src/i18n/i18n.tsx: Intl's medium date and short
 * time), in the page's language ("Nov 27, 2026, 2:03 PM UTC", "27.11.2026, 14:03 UTC"), in UTC
 * and saying so: the page has no time zone of the reader's. Written out rather than asked of Intl,
 * whose first formatter loads ICU's locale data — ≈ 5 MiB resident for the process's life and
 * 15–25 ms on the first page (docs/decisions/0059-idle-memory.md) — for two fixed patterns;
 * page-text.test.ts holds both to Intl's output.
 */
export function momentText(lang: PageLanguage, iso: string): string {
  const at = new Date(iso)
  const [year, month, day] = [at.getUTCFullYear(), at.getUTCMonth(), at.getUTCDate()]
  const [hour, minute] = [at.getUTCHours(), at.getUTCMinutes()]
  if (lang === 'de') return `${two(day)}.${two(month + 1)}.${year}, ${two(hour)}:${two(minute)} UTC`
  const clock = `${hour % 12 || 12}:${two(minute)} ${hour < 12 ? 'AM' : 'PM'}`
  return `${MONTHS[month]} ${day}, ${year}, ${clock} UTC`
}

/** A count in the page's language ("1,234", "1.234"): thousands grouped, as Intl groups them. */
export function numberText(lang: PageLanguage, value: number): string {
  const digits = String(Math.abs(Math.trunc(value)))
  const grouped = digits.replace(/\B(?=(\d{3})+$)/g, SEPARATORS[lang])
  return value < 0 ? `-${grouped}` : grouped
}

/** Both catalogues name the same keys (a test holds them to it). */
export const catalogueKeys = { en: Object.keys(EN), de: Object.keys(DE) }
