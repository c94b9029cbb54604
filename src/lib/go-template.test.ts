/** The go-link destination language: path appending, placeholders, and every way out refused. */
import { describe, expect, it } from 'vitest'
import {
  expandDestination,
  isTemplate,
  normalizeTemplate,
  parseRest,
  type Rest,
} from './go-template.js'

/** `/go/<slug>` followed by `raw` (null: nothing after the slug). */
function rest(raw: string | null): Rest | null {
  const parsed = parseRest(raw)
  if (typeof parsed === 'string') throw new Error(`refused: ${parsed}`)
  return parsed
}

function template(text: string): string {
  const normalized = normalizeTemplate(text)
  if ('problem' in normalized) throw new Error(normalized.problem)
  return normalized.template
}

/** Where the destination leads for `/go/<slug><after>`, e.g. after = `/acme/api?tab=1`. */
function open(destination: string, after: string): string {
  const [path, query = ''] = after.split(/\?(.*)/s, 2)
  const result = expandDestination(
    destination,
    rest(path === '' ? null : path!.replace(/^\//, '')),
    query,
  )
  if (!result.ok) throw new Error(`refused: ${result.refusal}`)
  return result.url
}

function refusal(destination: string, after: string): string {
  const [path, query = ''] = after.split(/\?(.*)/s, 2)
  const parsed = parseRest(path === '' ? null : path!.replace(/^\//, ''))
  if (typeof parsed === 'string') return parsed
  const result = expandDestination(destination, parsed, query)
  return result.ok ? `not refused: ${result.url}` : result.refusal
}

describe('path appending', () => {
  it('appends the rest to the path, with and without trailing slashes on either side', () => {
    expect(open('https://github.com/', '/acme/api')).toBe('https://github.com/acme/api')
    expect(open('https://example.com/docs', '/a/b')).toBe('https://example.com/docs/a/b')
    expect(open('https://example.com/docs/', '/a/b')).toBe('https://example.com/docs/a/b')
    expect(open('https://example.com/docs', '/a/b/')).toBe('https://example.com/docs/a/b/')
    expect(open('https://example.com/docs', '/')).toBe('https://example.com/docs/')
    expect(open('https://example.com/docs', '')).toBe('https://example.com/docs')
    expect(open('https://example.com/docs', '/a//b')).toBe('https://example.com/docs/a/b')
  })

  it('merges the request query after the destination query, and keeps the fragment', () => {
    expect(open('https://example.com/search?lang=en', '?q=1')).toBe(
      'https://example.com/search?lang=en&q=1',
    )
    expect(open('https://example.com/search?lang=en#top', '/x?q=a%20b&r')).toBe(
      'https://example.com/search/x?lang=en&q=a%20b&r#top',
    )
    expect(open('https://example.com/', '?q=<b>')).toBe('https://example.com/?q=%3Cb%3E')
  })

  it('percent-encodes spaces, unicode and reserved characters in each segment', () => {
    expect(open('https://example.com/w', '/hello world')).toBe(
      'https://example.com/w/hello%20world',
    )
    expect(open('https://example.com/w', '/hello%20world')).toBe(
      'https://example.com/w/hello%20world',
    )
    expect(open('https://example.com/w', '/Gr%C3%BC%C3%9Fe/caf%C3%A9')).toBe(
      'https://example.com/w/Gr%C3%BC%C3%9Fe/caf%C3%A9',
    )
    expect(open('https://example.com/w', '/日本')).toBe('https://example.com/w/%E6%97%A5%E6%9C%AC')
    expect(open('https://example.com/w', '/a%3Fb%23c')).toBe('https://example.com/w/a%3Fb%23c')
    // An encoded slash stays part of its segment.
    expect(open('https://example.com/w', '/a%2Fb')).toBe('https://example.com/w/a%2Fb')
  })

  it('refuses every dot segment, however it is written, so nothing leaves the destination path', () => {
    for (const after of [
      '/..',
      '/../x',
      '/a/../../x',
      '/.',
      '/%2e%2e/x',
      '/%2E%2E',
      '/.%2e',
      '/%2e.',
      '/%2e',
      '/..%2f..%2fadmin',
      '/%2f..%2f',
      '/..%5cadmin',
      '/a\\..\\x',
      '/%5c..%5c',
    ]) {
      expect(refusal('https://example.com/docs/', after), after).toBe('dot-segment')
    }
    // Dots inside a name are harmless.
    expect(open('https://example.com/docs', '/v1..2/.well-known/...')).toBe(
      'https://example.com/docs/v1..2/.well-known/...',
    )
  })

  it('refuses malformed percent-encoding instead of guessing', () => {
    expect(refusal('https://example.com/', '/%zz')).toBe('bad-encoding')
    expect(refusal('https://example.com/', '/%C3')).toBe('bad-encoding')
  })

  it('cannot reach another host through the rest', () => {
    expect(open('https://example.com', '//evil.example/x')).toBe(
      'https://example.com/evil.example/x',
    )
    expect(open('https://example.com', '/https:%2F%2Fevil.example')).toBe(
      'https://example.com/https%3A%2F%2Fevil.example',
    )
    expect(open('https://example.com', '/@evil.example')).toBe(
      'https://example.com/%40evil.example',
    )
  })
})

describe('path appending, built as text', () => {
  /**
   * The same result made the other way: WHATWG URL's own path and query setters (what the service
   * did before it built the text).
   */
  function withSetters(destination: string, parsed: Rest | null, query: string): string {
    const url = new URL(destination)
    const base = url.pathname.endsWith('/') ? url.pathname : `${url.pathname}/`
    if (parsed !== null) {
      const appended = parsed.segments.map((segment) => encodeURIComponent(segment)).join('/')
      const trailing = parsed.trailingSlash && parsed.segments.length > 0 ? '/' : ''
      url.pathname =
        parsed.segments.length === 0
          ? parsed.trailingSlash
            ? base
            : url.pathname
          : `${base}${appended}${trailing}`
    }
    if (query !== '') url.search = url.search === '' ? query : `${url.search.slice(1)}&${query}`
    return url.href
  }

  it('gives exactly what the URL setters give, for every mix of destination, rest and query', () => {
    const destinations = [
      'https://wiki.example/',
      'https://wiki.example/base',
      'https://wiki.example/base/',
      'https://wiki.example/base?lang=en',
      'https://wiki.example:8443/a/b?x=1&y=2#section',
      'http://xn--bcher-kva.example/b%C3%BCcher/',
      'https://wiki.example/with%20space/#frag',
    ]
    const rests = [
      null,
      '',
      '/',
      'guides',
      'guides/',
      'guides/setup',
      'a//b',
      'caf%C3%A9/%E2%9C%93',
      'a%20b/c%2Fd',
      "q%22%3C%3E%60'/x",
      'ä ö/ü',
    ]
    const queries = ['', 'tab=2', 'a=1&b=2', 'q=caf%C3%A9', 'q=a b"<>`', 'flag', 'x=%23y', 'x=1#2']
    let compared = 0
    for (const destination of destinations) {
      for (const raw of rests) {
        const parsed = parseRest(raw)
        if (typeof parsed === 'string') throw new Error(`refused: ${raw}`)
        for (const query of queries) {
          const result = expandDestination(destination, parsed, query)
          expect(result).toEqual({ ok: true, url: withSetters(destination, parsed, query) })
          compared++
        }
      }
    }
    expect(compared).toBe(destinations.length * rests.length * queries.length)
  })
})

describe('templates', () => {
  it('tells a template from a plain URL', () => {
    expect(isTemplate('https://example.com/{path}')).toBe(true)
    expect(isTemplate('https://example.com/?q={query|x}')).toBe(true)
    expect(isTemplate('https://example.com/{12}')).toBe(true)
    expect(isTemplate('https://example.com/?json={"a":1}')).toBe(false)
    expect(isTemplate('https://example.com/%7Bpath%7D')).toBe(false)
  })

  it('{path}: the rest with each segment encoded and slashes kept; no query merging', () => {
    const t = template('https://example.com/repo/{path}/blob')
    expect(open(t, '/a b/ü')).toBe('https://example.com/repo/a%20b/%C3%BC/blob')
    expect(open(t, '/a%2Fb?x=1')).toBe('https://example.com/repo/a%2Fb/blob')
    expect(open(t, '')).toBe('https://example.com/repo//blob')
  })

  it('{1}, {2}: single segments, encoded, empty when missing', () => {
    const t = template('https://jira.example/browse/{1}-{2}?focus={3}')
    expect(open(t, '/ENG/42')).toBe('https://jira.example/browse/ENG-42?focus=')
    expect(open(t, '/a b/c%2Fd/e&f=g')).toBe(
      'https://jira.example/browse/a%20b-c%2Fd?focus=e%26f%3Dg',
    )
  })

  it('{query}: the whole rest as one query value', () => {
    const t = template('https://www.google.com/search?q={query}')
    expect(open(t, '/foo bar/baz')).toBe('https://www.google.com/search?q=foo%20bar%2Fbaz')
    expect(open(t, '/a&b=c#d')).toBe('https://www.google.com/search?q=a%26b%3Dc%23d')
  })

  it('uses the default when the value is empty, encoded like the value', () => {
    const t = template('https://github.com/acme/{path|api/tree/main}')
    expect(open(t, '')).toBe('https://github.com/acme/api/tree/main')
    expect(open(t, '/')).toBe('https://github.com/acme/api/tree/main')
    expect(open(t, '/web')).toBe('https://github.com/acme/web')
    expect(open(template('https://example.com/s?q={query|hello world}'), '')).toBe(
      'https://example.com/s?q=hello%20world',
    )
    expect(open(template('https://example.com/{1|home}'), '')).toBe('https://example.com/home')
  })

  it('rejects placeholders in the scheme or host, unknown placeholders, and bad defaults when saved', () => {
    for (const [text, problem] of [
      ['https://{1}.example.com/', /only after the host/],
      ['https://example.com{path}', /only after the host/],
      ['{path}', /absolute http or https/],
      ['javascript:{path}', /absolute http or https/],
      ['https://example.com/{path:raw}', /unknown placeholder \{path:raw\}/],
      ['https://example.com/{0}', /unknown placeholder/],
      ['https://example.com/{query|a|b}', /unknown placeholder/],
      ['https://example.com/{path|..}', /\.\. segment/],
      ['https://user:pw@example.com/{path}', /user name or password/],
    ] as const) {
      const normalized = normalizeTemplate(text)
      expect('problem' in normalized && normalized.problem, text).toMatch(problem)
    }
  })

  it('normalises the literal parts but keeps the placeholders as written', () => {
    expect(template('HTTPS://Example.COM/a b/{path|x y}?q={query}')).toBe(
      'https://example.com/a%20b/{path|x y}?q={query}',
    )
  })

  it('refuses a result on another host or scheme, or outside the path prefix, even for a template saved unchecked', () => {
    // A stored template that skipped validation (older data): the result is still checked.
    expect(expandDestination('https://example.com{path}', rest('evil.example'), '')).toEqual({
      ok: false,
      refusal: 'other-host',
    })
    expect(
      expandDestination('https://example.com/docs/{path|../../admin}', rest(null), ''),
    ).toEqual({ ok: false, refusal: 'dot-segment' })
    expect(expandDestination('http://example.com/{1}', rest('x'), '')).toEqual({
      ok: true,
      url: 'http://example.com/x',
    })
  })

  it('refuses results longer than the limit', () => {
    const long = 'a'.repeat(3000)
    expect(refusal(template('https://example.com/{path}'), `/${long}/${long}/${long}`)).toBe(
      'too-long',
    )
  })
})

describe('templates, filled in a loop', () => {
  /**
   * The same result made the other way: the placeholder pattern's replace over the whole template
   * (what the service did before it split templates once).
   */
  function byReplace(template: string, parsed: Rest | null): string {
    const segments = parsed?.segments ?? []
    const encodePath = (pieces: string[]) =>
      pieces.map((piece) => encodeURIComponent(piece)).join('/')
    return template.replace(
      /\{(path|query|[1-9][0-9]?)(?:\|([^{}|\x00-\x1f\x7f]{0,200}))?\}/g,
      (_whole, name: string, fallback: string | undefined) => {
        const pick = (value: string, fromFallback: (text: string) => string) =>
          value !== '' ? value : fallback === undefined ? '' : fromFallback(fallback)
        if (name === 'path') {
          const value =
            segments.length === 0
              ? ''
              : encodePath(segments) + (parsed?.trailingSlash === true ? '/' : '')
          return pick(value, (text) => encodePath(text.split('/').filter((piece) => piece !== '')))
        }
        if (name === 'query')
          return pick(
            segments.length === 0 ? '' : encodeURIComponent(segments.join('/')),
            encodeURIComponent,
          )
        return pick(encodeURIComponent(segments[Number(name) - 1] ?? ''), encodeURIComponent)
      },
    )
  }

  it("gives exactly what the pattern's replace gives, for every mix of template and rest", () => {
    const templates = [
      'https://code.example/repos/{1}/tree/{2|main}',
      'https://example.com/{path}',
      'https://example.com/{path}/',
      'https://example.com/docs/{path|guides/start here}?v={1|latest}#{2}',
      'https://www.google.com/search?q={query}',
      'https://example.com/s?q={query|hello world}&p={path|a/b}',
      'https://jira.example/browse/{1}-{2}?focus={3}',
      'https://example.com/{12|twelve}/{1}{1}',
    ]
    const rests = [
      null,
      '',
      '/',
      'a',
      'a/',
      'a/b',
      'a//b/',
      'caf%C3%A9/%E2%9C%93',
      'a%20b/c%2Fd',
      'x/y/z/w/v/u/t/s/r/q/p/o',
    ]
    let compared = 0
    for (const template of templates) {
      for (const raw of rests) {
        const parsed = parseRest(raw)
        if (typeof parsed === 'string') throw new Error(`refused: ${raw}`)
        const expected = new URL(byReplace(template, parsed)).href
        expect(expandDestination(template, parsed, 'ignored=1'), `${template} ${raw}`).toEqual({
          ok: true,
          url: expected,
        })
        compared++
      }
    }
    expect(compared).toBe(templates.length * rests.length)
  })

  it('refuses a template whose default cannot be encoded (a lone surrogate), rather than failing the request', () => {
    expect(expandDestination('https://example.com/{1|\ud800}', rest(null), '')).toEqual({
      ok: false,
      refusal: 'invalid',
    })
  })
})

describe("golink's help-page examples, in our syntax", () => {
  it('go/gh → https://github.com/tailscale: go/gh/golink opens the repository', () => {
    expect(open('https://github.com/tailscale', '/golink')).toBe(
      'https://github.com/tailscale/golink',
    )
  })

  it('a search link: https://www.google.com/search?q={{QueryEscape .Path}} is ?q={query}', () => {
    expect(open(template('https://www.google.com/search?q={query}'), '/golink tailscale')).toBe(
      'https://www.google.com/search?q=golink%20tailscale',
    )
  })

  it('a path link: https://github.com/tailscale/tailscale/pull/{{PathEscape .Path}} is /pull/{1}', () => {
    expect(open(template('https://github.com/tailscale/tailscale/pull/{1}'), '/1234')).toBe(
      'https://github.com/tailscale/tailscale/pull/1234',
    )
  })

  it('{{if .Path}}…{{else}}…{{end}} becomes a default: ?q={query|is:open}', () => {
    const t = template('https://github.com/tailscale/tailscale/issues?q={query|is:open}')
    expect(open(t, '')).toBe('https://github.com/tailscale/tailscale/issues?q=is%3Aopen')
    expect(open(t, '/label:bug')).toBe(
      'https://github.com/tailscale/tailscale/issues?q=label%3Abug',
    )
  })
})
