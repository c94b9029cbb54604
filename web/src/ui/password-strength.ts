/**
 * A rough estimate of a new password's strength, for the meter under new-password fields. It only
 * guides: the service's rules (docs/API.md#passwords — length, the account's email,
 * breached-password list) decide, and the page shows their refusal at the field. The estimate
 * counts length and the kinds of characters, and discounts repeats, runs (abc, 123) and a password
 * that is the email.
 */
export type Strength = 0 | 1 | 2 | 3 | 4

const MIN_LENGTH = 8

function alphabetSize(password: string): number {
  let size = 0
  if (/[a-z]/.test(password)) size += 26
  if (/[A-Z]/.test(password)) size += 26
  if (/[0-9]/.test(password)) size += 10
  if (/[^a-zA-Z0-9]/.test(password)) size += 33
  return Math.max(size, 1)
}

/**
 * Characters that add information: a repeat of the previous one or the next in a run adds little.
 */
function effectiveLength(password: string): number {
  const chars = [...password]
  let length = 0
  for (let i = 0; i < chars.length; i++) {
    const code = chars[i]!.codePointAt(0)!
    const previous = i > 0 ? chars[i - 1]!.codePointAt(0)! : null
    length += previous !== null && Math.abs(code - previous) <= 1 ? 0.25 : 1
  }
  return length
}

/** 0 too short (or the email), 1 weak, 2 fair, 3 strong, 4 very strong. */
export function estimateStrength(password: string, email?: string | null): Strength {
  if ([...password].length < MIN_LENGTH) return 0
  if (email && password.toLowerCase() === email.toLowerCase()) return 0
  const bits = effectiveLength(password) * Math.log2(alphabetSize(password))
  if (bits < 40) return 1
  if (bits < 60) return 2
  if (bits < 80) return 3
  return 4
}
