/** How the console shows and completes URLs: IDN and Unicode paths readable, https:// added. */
import { describe, expect, it } from 'vitest'
import { readableUrl, withScheme } from './display-url'

describe('readableUrl', () => {
  it('shows an IDN host and a Unicode path as they are read, keeping reserved characters encoded', () => {
    expect(readableUrl('https://xn--bcher-kva.example/Stra%C3%9Fe?q=%C3%A4&x=%26')).toBe(
      'https://bücher.example/Straße?q=ä&x=%26',
    )
    expect(readableUrl('https://example.com/a%2Fb')).toBe('https://example.com/a%2Fb')
  })

  it('keeps an encoded space, control character or a malformed escape as stored, so the text stays unambiguous', () => {
    expect(readableUrl('https://example.com/a%20b')).toBe('https://example.com/a%20b')
    expect(readableUrl('https://example.com/%E2%80%AEevil')).toBe(
      'https://example.com/%E2%80%AEevil',
    )
    expect(readableUrl('https://example.com/%E0%A4%A')).toBe('https://example.com/%E0%A4%A')
    expect(readableUrl('not a url')).toBe('not a url')
  })
})

describe('withScheme', () => {
  it('adds https:// to a host with or without a path, in any script', () => {
    expect(withScheme('example.com/x')).toBe('https://example.com/x')
    expect(withScheme(' bücher.example ')).toBe('https://bücher.example')
    expect(withScheme('localhost:3000/a')).toBe('https://localhost:3000/a')
    expect(withScheme('//cdn.example/x')).toBe('https://cdn.example/x')
  })

  it('leaves what has a scheme, or is not a host, as typed (the API decides)', () => {
    for (const text of [
      'http://example.com',
      'HTTPS://example.com',
      'ftp://example.com',
      'javascript:alert(1)',
      'mailto:a@example.com',
      'notes',
      '',
    ]) {
      expect(withScheme(text)).toBe(text)
    }
  })
})
