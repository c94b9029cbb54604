/**
 * The line checker of the offline `verify` (export-lines.ts): its leaf hash is lib/merkle.ts's, and
 * a chunk's lines come back with their leaf indexes, stated hashes and kinds, redaction records
 * read, and checking stopped at the first line that is not an entry.
 */
import fc from 'fast-check'
import { describe, expect, it } from 'vitest'
import { leafHashOfText } from '../../lib/merkle.js'
import { LINE_EDITED, LINE_EVENT, LINE_REDACTED, checkLines, leafHashOf } from './export-lines.js'

const line = (index: number, event: string, stated = leafHashOf(event)) =>
  `{"leaf_index":${index},"leaf_hash":"${stated.toString('base64')}","event":${event}}\n`
const redacted = (index: number, stated: Buffer) =>
  `{"leaf_index":${index},"leaf_hash":"${stated.toString('base64')}","redacted":true}\n`
const chunk = (text: string) => new Uint8Array(Buffer.from(text))

describe('export lines', () => {
  it('hashes a leaf as lib/merkle.ts does, for any text', () => {
    fc.assert(
      fc.property(fc.string({ unit: 'grapheme' }), (text) => {
        expect(leafHashOf(text)).toEqual(leafHashOfText(text))
      }),
    )
  })

  it('reads each line of a chunk: index, stated hash, kind, and the leaves a redaction record names', () => {
    const gone = leafHashOf('{"id":"gone"}')
    const record = '{"action":"audit.redact","metadata":{"leaves":[1,"x",2.5]}}'
    const checked = checkLines(
      chunk(
        line(0, '{"id":"a"}') + redacted(1, gone) + line(2, record) + line(3, '{"id":"b"}', gone),
      ),
    )
    expect(checked.malformed).toBeNull()
    expect(checked.count).toBe(4)
    expect([...checked.indexes]).toEqual([0, 1, 2, 3])
    expect([...checked.kinds]).toEqual([LINE_EVENT, LINE_REDACTED, LINE_EVENT, LINE_EDITED])
    expect(Buffer.from(checked.hashes.subarray(32, 64))).toEqual(gone)
    expect(checked.redactions).toEqual([[2, [1]]])
  })

  it('stops at the first line that is not an entry, and at a last line without its newline', () => {
    const first = line(0, '{"id":"a"}')
    expect(checkLines(chunk(first + ' ' + first))).toMatchObject({
      count: 1,
      malformed: 'the line is not exactly one JSON object',
    })
    expect(checkLines(chunk(first + first.replace('leaf_hash":"', 'leaf_hash":"A')))).toMatchObject(
      {
        count: 1,
        malformed: 'the line is not an entry of a verifiable export',
      },
    )
    expect(checkLines(chunk(first + first.slice(0, -1)))).toMatchObject({
      count: 1,
      malformed: 'the file ends in the middle of a line',
    })
    // The last base64 character of a 32-byte hash carries two unused bits: set, it is another
    // spelling.
    const stated = leafHashOf('{"id":"a"}').toString('base64')
    const respelled = `${stated.slice(0, 42)}${String.fromCharCode(stated.charCodeAt(42) + 1)}=`
    expect(checkLines(chunk(first.replace(stated, respelled)))).toMatchObject({
      count: 0,
      malformed: 'the line has no valid leaf hash',
    })
    const record = '{"action":"audit.redact","metadata":{"leaves":[1]}'
    expect(checkLines(chunk(line(0, `${record},"x":}`))).redactions).toEqual([[0, null]])
  })
})
