/**
 * Slugs generated from organization names (docs/API.md#organizations-and-invitations:
 * `^[a-z0-9][a-z0-9-]{1,62}$`): lower-cased, accents dropped, every run of other characters turned
 * into one dash, dashes trimmed. A name with fewer than two usable characters gets `org` (or
 * `org-<character>`).
 */
export const MAX_SLUG_LENGTH = 63
const FALLBACK = 'org'

function trimDashes(text: string): string {
  return text.replace(/^-+|-+$/g, '')
}

export function slugFromName(name: string): string {
  const ascii = name
    .normalize('NFKD')
    .replace(/\p{M}+/gu, '') // "Café" → "Cafe": combining marks go, the base letter stays
    .toLowerCase()
  const slug = trimDashes(trimDashes(ascii.replace(/[^a-z0-9]+/g, '-')).slice(0, MAX_SLUG_LENGTH))
  if (slug.length >= 2) return slug
  return slug === '' ? FALLBACK : `${FALLBACK}-${slug}`
}

/** Every slug firstFreeSlug(base, …) can return starts with this (suffixes up to `-9999999`). */
export function slugCandidatesPrefix(base: string): string {
  return base.slice(0, MAX_SLUG_LENGTH - 8)
}

/**
 * `base` when it is free, else `base-2`, `base-3`, … — the first one not in `taken`, with `base`
 * shortened so that the suffix still fits.
 */
export function firstFreeSlug(base: string, taken: Iterable<string>): string {
  const used = new Set(taken)
  if (!used.has(base)) return base
  for (let n = 2; ; n++) {
    const suffix = `-${n}`
    const candidate = `${trimDashes(base.slice(0, MAX_SLUG_LENGTH - suffix.length))}${suffix}`
    if (!used.has(candidate)) return candidate
  }
}
