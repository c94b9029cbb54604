/**
 * The page head reader on its own: what it takes from a head and where it stops. Its cost on a page
 * nested without end is measured against the built server (test/import-responsiveness).
 */
import { describe, expect, it } from 'vitest'
import { PAGE_READ_BYTES, readPageSummary } from './page-reader.js'

/** A body of the given pieces, one chunk each, that records how many were pulled. */
function bodyOf(...pieces: string[]): { body: ReadableStream<Uint8Array>; pulled: () => number } {
  let pulled = 0
  const encoder = new TextEncoder()
  const body = new ReadableStream<Uint8Array>({
    pull(controller) {
      const piece = pieces[pulled++]
      if (piece === undefined) controller.close()
      else controller.enqueue(encoder.encode(piece))
    },
  })
  return { body, pulled: () => pulled }
}

const html = 'text/html; charset=utf-8'

describe('readPageSummary', () => {
  it('reads the title, the description (meta before og:) and the site name, decoded and cleaned', async () => {
    const { body } = bodyOf(
      '<html><head><meta property="og:description" content="From og">',
      '<meta name="Description" content="Plans &amp; notes\n for the\tteam"><ti',
      'tle>Team &lt;handbook&gt;</title><meta property="og:site_name" content="Example Wiki">',
      '</head><body><title>not this</title></body></html>',
    )
    expect(await readPageSummary(body, html)).toEqual({
      title: 'Team <handbook>',
      description: 'Plans & notes for the team',
      siteName: 'Example Wiki',
    })
  })

  it('falls back to og:description, and takes only the first title', async () => {
    const { body } = bodyOf(
      '<title>First</title><title>Second</title><meta property="og:description" content="Og">',
    )
    expect(await readPageSummary(body, html)).toMatchObject({ title: 'First', description: 'Og' })
  })

  it('stops reading at the end of the head', async () => {
    const { body, pulled } = bodyOf(
      '<head><title>T</title></head>',
      '<body>',
      '<meta name="description" content="late">',
    )
    expect(await readPageSummary(body, html)).toEqual({
      title: 'T',
      description: null,
      siteName: null,
    })
    // The stream pulls one chunk ahead of the reader; the third is never asked for.
    expect(pulled()).toBeLessThan(3)
  })

  it('an unclosed title, a title in an SVG, or nothing showable give null', async () => {
    expect((await readPageSummary(bodyOf('<head><title>Never closed').body, html)).title).toBeNull()
    expect(
      (await readPageSummary(bodyOf('<body><svg><title>icon</title></svg>').body, html)).title,
    ).toBeNull()
    expect((await readPageSummary(bodyOf('<title> \u200b </title>').body, html)).title).toBeNull()
  })

  it(`reads at most ${PAGE_READ_BYTES / 1024} KiB: a title after it is not read`, async () => {
    const filler = '<b>'.repeat(PAGE_READ_BYTES / 3)
    const { body } = bodyOf(filler, '<title>Too late</title>')
    expect((await readPageSummary(body, html)).title).toBeNull()
  })
})
