/**
 * Where `/go/<slug>/<rest>` leads: path appending and a small placeholder language for
 * link destinations. Pure string work, no I/O, no code execution — a template is text with holes,
 * never a program (unlike golink's Go templates).
 *
 * - A plain destination gets `/<rest>` appended to its path and the request's query appended to
 *   its own (`go/gh/acme/api?tab=x` → `https://github.com/acme/api?tab=x` for
 *   `https://github.com`).
 * - A destination holding a placeholder is a template; the rest fills the holes and the request's
 *   query is not merged (the template decides the whole URL). Placeholders: `{path}` (the rest,
 *   each segment percent-encoded, slashes kept), `{1}`…`{99}` (one segment, encoded), `{query}`
 *   (the whole rest as one encoded query value), each with an optional default for an empty value:
 *   `{path|main}`. Defaults are encoded like the values they stand in for.
 * - Safety (no open redirect, no traversal): placeholders may only follow the host; every value is
 *   percent-encoded per RFC 3986 `encodeURIComponent`; a rest segment that is, or decodes to, `.`
 *   or `..` — also when hidden behind %2e, %2f or a backslash — is refused; and every result is
 *   re-parsed (WHATWG URL) and must be http(s) on the destination's own host, under its path
 *   prefix.
 */

export const MAX_RESULT_LENGTH = 8192

/** `{path}`, `{query}`, `{1}`… with an optional `|default` (no braces or bars inside). */
const PLACEHOLDER = /\{(path|query|[1-9][0-9]?)(?:\|([^{}|\x00-\x1f\x7f]{0,200}))?\}/g
/**
 * Looks like a placeholder of ours but is not one (`{path:raw}`, `{0}`, `{query|a|b}`): a mistake
 * to point out.
 */
const NEAR_PLACEHOLDER = /\{(?:path|query|[0-9]+)(?:[^{}]*)\}/i
/**
 * Stands in for a placeholder while the URL parser normalises the template; letters and digits
 * only, so it survives unchanged.
 */
const TOKEN = (index: number) => `zzgotemplate${index}zz`
const TOKEN_TEXT = /zzgotemplate/i

/**
 * The part of the request after `/go/<slug>`: its decoded path segments, and whether it ended with
 * a slash.
 */
export interface Rest {
  segments: string[]
  trailingSlash: boolean
}

export type Refusal = 'bad-encoding' | 'dot-segment' | 'other-host' | 'too-long' | 'invalid'
export type Expansion = { ok: true; url: string } | { ok: false; refusal: Refusal }

/**
 * Parses the raw (still percent-encoded) rest of the path: `null` when the request had none. Empty
 * segments (`a//b`) are dropped; a segment that is not valid percent-encoded UTF-8, or that is a
 * dot segment once decoded and split at `/` and `\`, is refused.
 */
export function parseRest(raw: string | null): Rest | Refusal | null {
  if (raw === null) return null
  const parts = raw.split('/')
  const segments: string[] = []
  for (const part of parts) {
    if (part === '') continue
    let decoded = part
    // Without a `%` there is nothing to decode (the common case: plain names and paths).
    if (part.includes('%')) {
      try {
        decoded = decodeURIComponent(part)
      } catch {
        return 'bad-encoding'
      }
    }
    if (hasDotSegment(decoded)) return 'dot-segment'
    segments.push(decoded)
  }
  return { segments, trailingSlash: raw === '' || raw.endsWith('/') }
}

/**
 * `..`, `.`, or either between slashes or backslashes: what some server could still read as a step
 * up.
 */
function hasDotSegment(text: string): boolean {
  if (!text.includes('.')) return false
  return text.split(/[/\\]/).some((piece) => piece === '.' || piece === '..')
}

export function isTemplate(url: string): boolean {
  return url.search(PLACEHOLDER) !== -1
}

/**
 * A template, or text that tries to be one (a misspelt placeholder): either goes through
 * normalizeTemplate().
 */
export function looksLikeTemplate(text: string): boolean {
  return isTemplate(text) || NEAR_PLACEHOLDER.test(text)
}

/**
 * Checks and normalises a template as a link's destination: the same rules as any destination
 * (absolute http(s), no credentials) with the placeholders after the host. Returns the normalised
 * template, or the reason it is not one (a message for the `url` field).
 */
export function normalizeTemplate(text: string): { template: string } | { problem: string } {
  if (TOKEN_TEXT.test(text)) return { problem: 'must not contain the text "zzgotemplate"' }
  const placeholders: string[] = []
  const tokenized = text.replace(PLACEHOLDER, (whole) => TOKEN(placeholders.push(whole) - 1))
  const near = NEAR_PLACEHOLDER.exec(tokenized)
  if (near !== null)
    return {
      problem: `has an unknown placeholder ${near[0]}: use {path}, {query}, {1}, {2}… with an optional |default`,
    }
  for (const placeholder of placeholders) {
    const fallback = /\|(.*)\}$/.exec(placeholder)?.[1]
    if (fallback !== undefined && hasDotSegment(fallback))
      return { problem: `has a default with a . or .. segment in ${placeholder}` }
  }
  let url: URL
  try {
    url = new URL(tokenized)
  } catch {
    return { problem: 'must be an absolute http or https URL' }
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:')
    return { problem: 'must be an absolute http or https URL' }
  if (url.username !== '' || url.password !== '')
    return { problem: 'must not contain a user name or password' }
  if (TOKEN_TEXT.test(url.host))
    return { problem: 'may use placeholders only after the host (in the path, query or fragment)' }
  let template = url.href
  for (const [index, placeholder] of placeholders.entries()) {
    if (!template.includes(TOKEN(index)))
      return {
        problem: 'may use placeholders only after the host (in the path, query or fragment)',
      }
    template = template.replace(TOKEN(index), placeholder)
  }
  return { template }
}

const encode = (segment: string) => encodeURIComponent(segment)
const encodePath = (segments: readonly string[]) => segments.map(encode).join('/')

/** The literal path before any placeholder, up to its last slash: what a result must stay under. */
function pathPrefixOf(url: URL): string {
  const path = url.pathname
  const hole = path.search(TOKEN_TEXT)
  const literal = hole === -1 ? path : path.slice(0, hole)
  return literal.slice(0, literal.lastIndexOf('/') + 1)
}

/**
 * A result is only ever sent if it is http(s), on the destination's host and under its path prefix.
 */
function checked(result: string, host: string, prefix: string): Expansion {
  let url: URL
  try {
    url = new URL(result)
  } catch {
    return { ok: false, refusal: 'invalid' }
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:')
    return { ok: false, refusal: 'other-host' }
  if (url.host !== host || url.username !== '' || url.password !== '')
    return { ok: false, refusal: 'other-host' }
  if (!url.pathname.startsWith(prefix)) return { ok: false, refusal: 'dot-segment' }
  const href = url.href
  if (href.length > MAX_RESULT_LENGTH) return { ok: false, refusal: 'too-long' }
  return { ok: true, url: href }
}

/**
 * What a destination is made of, worked out once per destination text: a template's host and
 * literal path prefix (what every result must keep), or a plain URL's parts, which a result is
 * put together from as text and then parsed once (checked) — instead of a parse, a path setter
 * and a query setter, each of which re-parses the whole URL, on every redirect.
 */
type Shape =
  | TemplateShape
  | { kind: 'plain'; origin: string; host: string; pathname: string; search: string; hash: string }
  /** A template that does not parse as a URL (a stored destination always does). */
  | { kind: 'invalid' }

/**
 * A template as text between holes (`literals[i]`, hole `i`, `literals[i + 1]`…), split once: a
 * redirect fills the holes in a loop instead of running the placeholder pattern over the template.
 * `fallback` is the hole's default, already encoded as the value it stands in for ('' for none).
 */
interface TemplateShape {
  kind: 'template'
  host: string
  prefix: string
  literals: string[]
  holes: Array<{ name: 'path' | 'query' | number; fallback: string }>
}

/** Shapes of the destinations met lately, by text; past the bound the oldest goes. */
const shapes = new Map<string, Shape>()
const SHAPES_KEPT = 1000

function shapeOf(destination: string): Shape {
  let shape = shapes.get(destination)
  if (shape !== undefined) return shape
  shape = isTemplate(destination) ? templateShape(destination) : plainShape(destination)
  if (shapes.size >= SHAPES_KEPT) shapes.delete(shapes.keys().next().value as string)
  shapes.set(destination, shape)
  return shape
}

function templateShape(template: string): Shape {
  const literals: string[] = []
  const holes: TemplateShape['holes'] = []
  // One pass over the placeholders gives the holes and the text the URL parser normalises (a token
  // per hole).
  let tokenized = ''
  let after = 0
  try {
    for (const match of template.matchAll(PLACEHOLDER)) {
      const [whole, name] = match
      const fallback = match[2]
      const literal = template.slice(after, match.index)
      literals.push(literal)
      tokenized += literal + TOKEN(match.index)
      const encoded =
        fallback === undefined
          ? ''
          : name === 'path'
            ? encodePath(fallback.split('/').filter((piece) => piece !== ''))
            : encode(fallback)
      holes.push({
        name: name === 'path' || name === 'query' ? name : Number(name),
        fallback: encoded,
      })
      after = match.index + whole.length
    }
    literals.push(template.slice(after))
    const url = new URL(tokenized + template.slice(after))
    return { kind: 'template', host: url.host, prefix: pathPrefixOf(url), literals, holes }
  } catch {
    // Not a URL, or a default that cannot be encoded (a lone surrogate): no redirect through it.
    return { kind: 'invalid' }
  }
}

function plainShape(destination: string): Shape {
  let url: URL
  try {
    url = new URL(destination)
  } catch {
    return { kind: 'invalid' }
  }
  // Stored destinations carry no user name or password (links/url.ts), so the origin is all that
  // precedes the path.
  return {
    kind: 'plain',
    origin: `${url.protocol}//${url.host}`,
    host: url.host,
    pathname: url.pathname,
    search: url.search,
    hash: url.hash,
  }
}

/** A hole's value from the rest: '' when the rest has nothing for it (its default then applies). */
function holeValue(name: TemplateShape['holes'][number]['name'], rest: Rest | null): string {
  const segments = rest?.segments ?? []
  if (typeof name === 'number') return encode(segments[name - 1] ?? '')
  if (segments.length === 0) return ''
  return name === 'path'
    ? encodePath(segments) + (rest?.trailingSlash === true ? '/' : '')
    : encode(segments.join('/'))
}

/** Fills a template's holes from the rest (none: every value is empty, so defaults apply). */
function expandTemplate(shape: TemplateShape, rest: Rest | null): Expansion {
  let result = shape.literals[0]!
  for (let i = 0; i < shape.holes.length; i++) {
    const { name, fallback } = shape.holes[i]!
    const value = holeValue(name, rest)
    result += (value === '' ? fallback : value) + shape.literals[i + 1]!
  }
  return checked(result, shape.host, shape.prefix)
}

/**
 * Where `/go/<slug>[/<rest>][?<query>]` leads for a link whose destination is `destination`
 * (already normalised when the link was saved). `query` is the request's raw query string, without
 * `?`.
 */
export function expandDestination(
  destination: string,
  rest: Rest | null,
  query: string,
): Expansion {
  const shape = shapeOf(destination)
  if (shape.kind === 'invalid') return { ok: false, refusal: 'invalid' }
  if (shape.kind === 'template') return expandTemplate(shape, rest)
  if (rest === null && query === '') return { ok: true, url: destination }
  const base = shape.pathname.endsWith('/') ? shape.pathname : `${shape.pathname}/`
  let pathname = shape.pathname
  if (rest !== null) {
    const appended = encodePath(rest.segments)
    const trailing = rest.trailingSlash && rest.segments.length > 0 ? '/' : ''
    pathname =
      rest.segments.length === 0
        ? rest.trailingSlash
          ? base
          : shape.pathname
        : `${base}${appended}${trailing}`
  }
  // A raw `#` cannot be in a request's query; were one sent, it stays part of the query, as the
  // URL's query setter would keep it.
  const added = query.replaceAll('#', '%23')
  const search =
    added === '' ? shape.search : shape.search === '' ? `?${added}` : `${shape.search}&${added}`
  const prefix =
    rest !== null && rest.segments.length > 0
      ? base
      : pathname.slice(0, pathname.lastIndexOf('/') + 1)
  return checked(`${shape.origin}${pathname}${search}${shape.hash}`, shape.host, prefix)
}
