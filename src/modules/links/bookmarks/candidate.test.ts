import { describe, expect, it } from 'vitest'
import { cleanText } from './candidate.js'

describe('cleanText', () => {
  it('keeps a text that fits, with unshowable characters and runs of white space as one space', () => {
    expect(cleanText('  Work\u0000\t/ Projects\u2028 ', 200)).toBe('Work / Projects')
  })

  it('cuts a long text by characters, never between the halves of one', () => {
    const text = `${'a'.repeat(9)}😀😀`
    expect(text.length).toBe(13)
    expect(cleanText(text, 10)).toBe(`${'a'.repeat(9)}😀`)
    expect(cleanText(text, 11)).toBe(text)
    expect(cleanText(`${'a'.repeat(9)} b`, 10)).toBe('a'.repeat(9))
  })

  it('is null for what is no text, or nothing once cleaned', () => {
    expect(cleanText(7, 10)).toBeNull()
    expect(cleanText(' \u0000\u200b ', 10)).toBeNull()
  })
})
