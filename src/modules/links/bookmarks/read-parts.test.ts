import { describe, expect, it } from 'vitest'
import { WRITE_PART } from './batches.js'
import { cleanBookmark, Skip, type CleanBookmark } from './candidate.js'
import { ReadParts, type ReadBookmark } from './read-parts.js'

const read = (url: string, extra: Record<string, unknown> = {}): ReadBookmark => ({
  verdict: cleanBookmark({
    url,
    title: null,
    slug: null,
    tags: [],
    forwardingEnabled: undefined,
    ...extra,
  }),
  shownUrl: url.slice(0, 300),
})

describe('ReadParts', () => {
  it('gives back each bookmark as read: columns, skips and the URL as written', () => {
    const parts = new ReadParts()
    const bookmarks = [
      read('https://example.com/a', {
        title: 'A page',
        slug: 'a-page',
        tags: ['Work', 'work', 'Docs'],
        forwardingEnabled: false,
        createdAt: '2020-02-03T04:05:06.000Z',
      }),
      // Written otherwise than the link's URL: the report shows it as written.
      read('HTTPS://Example.com/b'),
      read('not a url'),
      { verdict: new Skip('invalid_item', 'is not a link object'), shownUrl: null },
    ]
    for (const bookmark of bookmarks) parts.push(bookmark)
    expect(parts.length).toBe(4)
    const back = parts.take(0)
    expect(back).toEqual(bookmarks)
    expect(back[1]!.shownUrl).toBe('HTTPS://Example.com/b')
    expect((back[1]!.verdict as CleanBookmark).url).toBe('https://example.com/b')
    expect(back[2]!.verdict).toBeInstanceOf(Skip)
    expect(back[0]!.verdict).toMatchObject({ slugKey: 'a-page', tags: ['Work', 'Docs'] })
  })

  it('holds the file in parts of WRITE_PART, each given once', () => {
    const parts = new ReadParts()
    const count = WRITE_PART * 2 + 3
    for (let i = 0; i < count; i++) parts.push(read(`https://example.com/${i}`))
    expect(parts.length).toBe(count)
    const urls = (offset: number) =>
      parts.take(offset).map((item) => (item.verdict as CleanBookmark).url)
    expect(urls(0)).toHaveLength(WRITE_PART)
    expect(urls(WRITE_PART)[0]).toBe(`https://example.com/${WRITE_PART}`)
    expect(urls(WRITE_PART * 2)).toEqual(
      [0, 1, 2].map((i) => `https://example.com/${WRITE_PART * 2 + i}`),
    )
    // Let go once taken.
    expect(parts.take(0)).toEqual([])
  })

  it('is empty for a file without bookmarks', () => {
    const parts = new ReadParts()
    expect(parts.length).toBe(0)
    expect(parts.take(0)).toEqual([])
  })
})
