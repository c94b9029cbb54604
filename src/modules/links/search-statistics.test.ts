/**
 * What PostgreSQL's statistics say of the searched text (search-statistics.repo.ts): the share of
 * the links a term is in, by the sample — the common values by their own shares, the histogram's
 * values standing for the rest — and the shares of the pairs in the most links.
 */
import { describe, expect, it } from 'vitest'
import { pairSharesOf, sampledShare } from './search-statistics.repo.js'

const sample = {
  common: [
    { value: 'handbook\nhttps://wiki.example/\n', share: 0.2 },
    { value: 'roadmap\nhttps://plan.example/\nroadmap', share: 0.1 },
  ],
  others: ['page 1 of the handbook\nhttps://a.example/1\n', 'quokka\nhttps://b.example/\n'],
  othersShare: 0.6,
}

describe('the sampled share of a term', () => {
  it('adds the common values that hold it to the histogram’s share of the rest', () => {
    expect(sampledShare(sample, 'handbook')).toBeCloseTo(0.2 + 0.6 / 2)
    expect(sampledShare(sample, 'roadmap')).toBeCloseTo(0.1)
    expect(sampledShare(sample, 'example')).toBeCloseTo(0.9)
    expect(sampledShare(sample, 'quokka')).toBeCloseTo(0.3)
    expect(sampledShare(sample, 'nowhere')).toBe(0)
  })

  it('counts a term only within one line: the title, the URL or the slug', () => {
    expect(sampledShare(sample, 'handbookhttps')).toBe(0)
    expect(sampledShare({ ...sample, others: [] }, 'quokka')).toBe(0)
  })
})

describe('the shares of the most common pairs', () => {
  it('pairs each listed element with its share; before an analysis there are none', () => {
    // PostgreSQL follows the elements' shares with their least and greatest and the nulls' share.
    const shares = pairSharesOf(['ha', '\nh'], [0.9, 0.5, 0.5, 0.9, 0])
    expect(shares).toEqual(
      new Map([
        ['ha', 0.9],
        ['\nh', 0.5],
      ]),
    )
    expect(pairSharesOf(null, null)).toBeNull()
    expect(pairSharesOf(['ha'], [])).toBeNull()
  })
})
