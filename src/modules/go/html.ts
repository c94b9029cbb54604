/**
 * The HTML pages of /go/{slug}: the chooser and the short answers (not found, refused). No script
 * anywhere; the one stylesheet is allowed by its hash, and every piece of user-supplied text —
 * titles, URLs, organization names, the slug — goes through escapeHtml().
 */
import { createHash } from 'node:crypto'

export interface HtmlPage {
  status: number
  html: string
  /** The Content-Security-Policy the page is sent with. */
  csp: string
}

const ENTITIES: Record<string, string> = { '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' }

/** Text for HTML element content and quoted attribute values. */
export function escapeHtml(text: string): string {
  return text.replace(/[&<>"']/g, (c) => ENTITIES[c]!)
}

const STYLE =
  'body{font:16px/1.5 system-ui,sans-serif;margin:0;background:#f6f7f9;color:#1d2330}' +
  'main{max-width:40rem;margin:3rem auto;padding:0 1rem}h1{font-size:1.4rem}' +
  'ul{list-style:none;padding:0}li{background:#fff;border:1px solid #dde1e7;border-radius:6px;padding:.8rem 1rem;margin:.6rem 0}' +
  '.url{color:#5b6474;font-size:.85rem;word-break:break-all;margin:.2rem 0}.source{font-size:.85rem;margin:.2rem 0}' +
  'form{margin:.4rem 0 0}button{font:inherit;font-size:.85rem;cursor:pointer}'

const STYLE_HASH = `'sha256-${createHash('sha256').update(STYLE).digest('base64')}'`

/** Only origins made of these characters are named in the policy; anything else falls back to its scheme. */
const PLAIN_ORIGIN = /^https?:\/\/[A-Za-z0-9.-]+(:\d{1,5})?$/

/**
 * No scripts, no other resources; forms may post only here — and, as browsers apply form-action to
 * the redirect that follows a form, go on to the candidates' origins.
 */
function policy(formTargets: readonly string[] = []): string {
  const origins = new Set(
    formTargets.map((url) => {
      const { origin, protocol } = new URL(url)
      return PLAIN_ORIGIN.test(origin) ? origin : protocol
    }),
  )
  const formAction = ["'self'", ...origins].join(' ')
  return `default-src 'none'; style-src ${STYLE_HASH}; form-action ${formAction}; base-uri 'none'; frame-ancestors 'none'`
}

function document(title: string, body: string): string {
  return (
    '<!doctype html><html lang="en"><head><meta charset="utf-8">' +
    '<meta name="viewport" content="width=device-width, initial-scale=1">' +
    `<title>${escapeHtml(title)}</title><style>${STYLE}</style></head><body><main>${body}</main></body></html>`
  )
}

/** A short answer; `back` links to another page, e.g. the chooser again. */
export function messagePage(status: number, heading: string, text: string, back?: { href: string; label: string }): HtmlPage {
  const link = back === undefined ? '' : `<p><a href="${escapeHtml(back.href)}">${escapeHtml(back.label)}</a></p>`
  return { status, html: document(heading, `<h1>${escapeHtml(heading)}</h1><p>${escapeHtml(text)}</p>${link}`), csp: policy() }
}

export function notFoundPage(slug: string): HtmlPage {
  return messagePage(404, `go/${slug} does not exist`, 'No link you can see has this name, or none of them forwards.')
}

/** Where a candidate comes from: the caller's own links, or an organization's (by its name). */
export type CandidateSource = { kind: 'personal' } | { kind: 'organization'; name: string }

export interface Candidate {
  id: string
  title: string | null
  url: string
  source: CandidateSource
}

/**
 * The source line of a candidate. The words "Personal" and "Organization:" are ours, in bold; an
 * organization's name only ever follows "Organization:", isolated (<bdi>) so no character in it
 * can reorder the label — so no name, "Personal" included, can pass for another kind (issue 11).
 */
export function sourceLabelHtml(source: CandidateSource): string {
  if (source.kind === 'personal') return '<strong>Personal</strong>'
  return `<strong>Organization:</strong> <bdi>${escapeHtml(source.name)}</bdi>`
}

/**
 * Several links share the slug: each can be opened once, or opened and remembered. Remembering is a
 * POST form carrying the session's CSRF token (forms cannot send X-CSRF-Token); without a session
 * (an API token) there is nothing to bind it to, so only the plain links are offered.
 */
export function chooserPage(
  slug: string,
  candidates: readonly Candidate[],
  csrfToken: string | null,
  request: { rest: string | null; query: string } = { rest: null, query: '' },
): HtmlPage {
  // The page may be /go/<slug>/a/b: the form's relative action climbs back to /go/ first.
  const up = request.rest === null ? '' : '../'.repeat(request.rest.split('/').length)
  const to = `${request.rest === null ? '' : `/${request.rest}`}${request.query === '' ? '' : `?${request.query}`}`
  const items = candidates.map((link) => {
    const remember =
      csrfToken === null
        ? ''
        : `<form method="post" action="${escapeHtml(up + slug)}/preference">` +
          `<input type="hidden" name="csrf_token" value="${escapeHtml(csrfToken)}">` +
          (to === '' ? '' : `<input type="hidden" name="to" value="${escapeHtml(to)}">`) +
          `<input type="hidden" name="link_id" value="${escapeHtml(link.id)}">` +
          '<button type="submit">Open and remember this choice</button></form>'
    return (
      `<li><a href="${escapeHtml(link.url)}">${escapeHtml(link.title ?? link.url)}</a>` +
      `<p class="url">${escapeHtml(link.url)}</p><p class="source">${sourceLabelHtml(link.source)}</p>${remember}</li>`
    )
  })
  const body = `<h1>go/${escapeHtml(slug)}</h1><p>Several links are called go/${escapeHtml(slug)}. Which one?</p><ul>${items.join('')}</ul>`
  return { status: 200, html: document(`go/${slug}`, body), csp: policy(candidates.map((link) => link.url)) }
}

export interface LinkDetails {
  title: string | null
  url: string
  source: CandidateSource
  createdAt: string
  updatedAt: string
  clicks30d: number
}

/** `/go/<slug>+` (issue 31): what the go-link is — destination, owner, dates and clicks — without opening it. */
export function detailsPage(slug: string, links: readonly LinkDetails[]): HtmlPage {
  const items = links.map(
    (link) =>
      `<li><a href="${escapeHtml(link.url)}">${escapeHtml(link.title ?? link.url)}</a>` +
      `<p class="url">${escapeHtml(link.url)}</p><p class="source">${link.source.kind === 'personal' ? '<strong>Owner:</strong> you' : `<strong>Owner:</strong> organization <bdi>${escapeHtml(link.source.name)}</bdi>`}</p>` +
      `<p class="source">Created ${escapeHtml(link.createdAt.slice(0, 10))}, last changed ${escapeHtml(link.updatedAt.slice(0, 10))}</p>` +
      `<p class="source">${link.clicks30d} ${link.clicks30d === 1 ? 'click' : 'clicks'} in the last 30 days</p></li>`,
  )
  const body = `<h1>go/${escapeHtml(slug)}</h1><ul>${items.join('')}</ul>`
  return { status: 200, html: document(`go/${slug}+`, body), csp: policy() }
}
