/**
 * SQLite's FTS5 trigram tokenizer, as the links' index uses it, folds characters beyond ASCII the
 * way term-index.repo.ts relies on: into an ASCII letter only the Kelvin sign ("k") and the long s
 * ("s"), and every character without case (by JavaScript's Unicode tables) into itself but two
 * noncharacters, read as the replacement character. A
 * two-character term of ASCII and such characters then finds in the index what LIKE finds, but
 * where it holds "k" or "s". A new SQLite that folds otherwise fails this test by name.
 */
import { DatabaseSync } from 'node:sqlite'
import { expect, it } from 'vitest'

/** Every code point from U+0080 through the supplementary multilingual plane, with its folding. */
function foldings(): Map<number, string> {
  const db = new DatabaseSync(':memory:')
  try {
    db.exec(`create virtual table text using fts5(t, content = '', tokenize = 'trigram')`)
    db.exec(`create virtual table trigrams using fts5vocab(text, 'instance')`)
    const insert = db.prepare('insert into text (rowid, t) values (?, ?)')
    db.exec('begin')
    for (let code = 0x80; code <= 0x1ffff; code++)
      if (code < 0xd800 || code > 0xdfff) insert.run(code, `~${String.fromCodePoint(code)}~`)
    db.exec('commit')
    const rows = db.prepare('select term, doc from trigrams').all() as {
      term: string
      doc: number
    }[]
    return new Map(rows.map((row) => [row.doc, [...row.term][1]!]))
  } finally {
    db.close()
  }
}

it('folds only the Kelvin sign and the long s into ASCII, and no caseless character', () => {
  const folded = foldings()
  const intoAscii = [...folded]
    .sort(([a], [b]) => a - b)
    .filter(([, to]) => to.charCodeAt(0) < 0x80)
    .map(([code, to]) => `U+${code.toString(16).toUpperCase()}→${to}`)
  expect(intoAscii).toEqual(['U+17F→s', 'U+212A→k'])
  const caselessChanged = [...folded]
    .filter(([code, to]) => {
      const character = String.fromCodePoint(code)
      const caseless =
        character.toLowerCase() === character && character.toUpperCase() === character
      return caseless && to !== character
    })
    .map(
      ([code, to]) => `U+${code.toString(16).toUpperCase()}→U+${to.codePointAt(0)!.toString(16)}`,
    )
  // The two noncharacters of the first plane are indexed as the replacement character, which a
  // term holding it is therefore not looked up by.
  expect(caselessChanged).toEqual(['U+FFFE→U+fffd', 'U+FFFF→U+fffd'])
})
