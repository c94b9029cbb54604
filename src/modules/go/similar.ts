/**
 * The closest existing slugs to one that names nothing (create-on-miss): the person
 * probably mistyped or half-remembered it. Closest means a shared prefix or a small edit distance
 * (Levenshtein, ignoring case); at most five, the closest first.
 */
const MAX_SUGGESTIONS = 5

/**
 * Levenshtein distance with a cap: anything above `cap` is reported as cap + 1 (slugs are ≤ 64
 * characters).
 */
export function editDistance(a: string, b: string, cap: number): number {
  if (Math.abs(a.length - b.length) > cap) return cap + 1
  let previous = Array.from({ length: b.length + 1 }, (_, index) => index)
  for (let i = 1; i <= a.length; i++) {
    const current = [i]
    let rowMin = i
    for (let j = 1; j <= b.length; j++) {
      const value = Math.min(
        previous[j]! + 1,
        current[j - 1]! + 1,
        previous[j - 1]! + (a[i - 1] === b[j - 1] ? 0 : 1),
      )
      current.push(value)
      rowMin = Math.min(rowMin, value)
    }
    if (rowMin > cap) return cap + 1
    previous = current
  }
  return previous[b.length]!
}

export function similarSlugs(wanted: string, slugs: readonly string[]): string[] {
  const key = wanted.toLowerCase()
  // Short slugs tolerate one typo, longer ones two.
  const cap = key.length <= 4 ? 1 : 2
  const seen = new Set<string>()
  const scored: { slug: string; score: number }[] = []
  for (const slug of slugs) {
    const other = slug.toLowerCase()
    if (other === key || seen.has(other)) continue
    seen.add(other)
    const prefix = key.length >= 2 && (other.startsWith(key) || key.startsWith(other))
    const distance = editDistance(key, other, cap)
    if (distance <= cap) scored.push({ slug, score: distance })
    else if (prefix) scored.push({ slug, score: cap + 1 })
  }
  return scored
    .sort(
      (x, y) => x.score - y.score || x.slug.length - y.slug.length || x.slug.localeCompare(y.slug),
    )
    .slice(0, MAX_SUGGESTIONS)
    .map((entry) => entry.slug)
}
