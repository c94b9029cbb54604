/**
 * An audit event's details as lines in words, in the page's language: each known key by its
 * label, each known value (a role, a sign-in method, a channel, an outcome) by its word, times in
 * the reader's format. Ids — of sessions, invitations, users — are left to the raw details behind
 * their toggle: they say nothing to a reader, and the target column names what was changed.
 */
import type { I18n } from '../i18n/i18n'

type Words = Pick<I18n, 't' | 'dateTime' | 'language'>

const ISO_TIME = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}/

/** A code the catalogue has no word for, at least without its underscores. */
const plain = (code: string) => code.replaceAll('_', ' ')

/** Whether a key holds an id (or ids) only. */
const isId = (key: string) => /(^|_)ids?$/.test(key)

/** The catalogue's text for `key`, or undefined when it has none. */
function known(words: Words, key: string): string | undefined {
  const text = words.t(key)
  return text === key ? undefined : text
}

/** One value of `key` in words: roles by their name, codes by their word, else as it is. */
function word(words: Words, key: string, value: string): string {
  if (key === 'role' || ((key === 'from' || key === 'to') && known(words, `role.${value}`)))
    return known(words, `role.${value}`) ?? value
  if (key === 'fields') return known(words, `admin.audit.fact.${value}`) ?? plain(value)
  if (ISO_TIME.test(value)) return words.dateTime(value)
  return known(words, `admin.audit.value.${value}`) ?? value
}

function valueText(words: Words, key: string, value: unknown): string {
  const list = (items: string[]) =>
    new Intl.ListFormat(words.language, { type: 'conjunction' }).format(items)
  if (Array.isArray(value)) return list(value.map((item) => valueText(words, key, item)))
  if (typeof value === 'boolean') return words.t(value ? 'admin.audit.yes' : 'admin.audit.no')
  if (typeof value === 'number') return new Intl.NumberFormat(words.language).format(value)
  // A sign-in's factors, joined with "+" by the service: "password and backup code".
  if (typeof value === 'string' && key === 'method')
    return list(value.split('+').map((part) => word(words, key, part)))
  if (typeof value === 'string') return word(words, key, value)
  return value === null || value === undefined ? '—' : JSON.stringify(value)
}

/** The lines shown for an event's metadata: [label, text] in the metadata's order. */
export function auditFacts(words: Words, metadata: Record<string, unknown>): [string, string][] {
  return Object.entries(metadata)
    .filter(([key]) => !isId(key))
    .map(([key, value]) => [
      known(words, `admin.audit.fact.${key}`) ?? plain(key),
      valueText(words, key, value),
    ])
}
