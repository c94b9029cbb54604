/**
 * The HTML pages of /go/{slug}: the chooser and the short answers (not found, refused). No script
 * anywhere; the one stylesheet is allowed by its hash, and every piece of user-supplied text —
 * titles, URLs, organization names, the slug — goes through escapeHtml().
 */
import { createHash } from 'node:crypto'
import {
  momentText,
  numberText,
  text,
  type PageContext,
  type PageLanguage,
  type TextKey,
} from './page-text.js'

export interface HtmlPage {
  status: number
  html: string
  /** The Content-Security-Policy the page is sent with. */
  csp: string
}

const ENTITIES: Record<string, string> = {
  '&': '&amp;',
  '<': '&lt;',
  '>': '&gt;',
  '"': '&quot;',
  "'": '&#39;',
}

/** Text for HTML element content and quoted attribute values. */
export function escapeHtml(text: string): string {
  return text.replace(/[&<>"']/g, (c) => ENTITIES[c]!)
}

/**
 * The console's look in a few hundred bytes: its colour roles (web/src/styles.css) for both themes,
 * dark following the system unless the person chose a theme (`data-theme` on <html>).
 */
const LIGHT =
  '--bg:#f6f7f9;--surface:#fff;--text:#1a1d23;--muted:#545b67;--border:#d0d5dd;--accent:#2454c5;--on-accent:#fff;color-scheme:light'
const DARK =
  '--bg:#0f1115;--surface:#181b21;--text:#e7e9ee;--muted:#a7afbd;--border:#343a46;--accent:#7aa2ff;--on-accent:#0b1020;color-scheme:dark'
const STYLE =
  `:root{${LIGHT}}:root[data-theme=dark]{${DARK}}@media (prefers-color-scheme:dark){:root[data-theme=auto]{${DARK}}}` +
  'body{font:16px/1.5 system-ui,-apple-system,"Segoe UI",Roboto,"Noto Sans",sans-serif;margin:0;background:var(--bg);color:var(--text)}' +
  'header{border-bottom:1px solid var(--border);background:var(--surface);padding:.6rem 1rem;font-weight:600}header a{color:var(--text);text-decoration:none}' +
  'main{max-width:40rem;margin:2rem auto;padding:0 1rem}h1{font-size:1.4rem;overflow-wrap:anywhere}h2{font-size:1.1rem}a{color:var(--accent)}' +
  'ul{list-style:none;padding:0}li{background:var(--surface);border:1px solid var(--border);border-radius:6px;padding:.8rem 1rem;margin:.6rem 0}' +
  '.url{color:var(--muted);font-size:.85rem;word-break:break-all;margin:.2rem 0}.source{font-size:.85rem;margin:.2rem 0}' +
  'form{margin:.4rem 0 0}button,.button{font:inherit;font-size:.9rem;cursor:pointer;border-radius:6px;padding:.45rem .9rem;border:1px solid var(--border);background:var(--surface);color:var(--text)}' +
  '.button{display:inline-block;text-decoration:none;background:var(--accent);border-color:var(--accent);color:var(--on-accent);font-weight:600}' +
  'a:focus-visible,button:focus-visible{outline:2px solid var(--accent);outline-offset:2px}.mono{font-family:ui-monospace,Menlo,Consolas,monospace}'

const STYLE_HASH = `'sha256-${createHash('sha256').update(STYLE).digest('base64')}'`

/**
 * Only origins made of these characters are named in the policy; anything else falls back to its
 * scheme.
 */
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

function document(ctx: PageContext, title: string, body: string): string {
  return (
    `<!doctype html><html lang="${ctx.lang}" data-theme="${ctx.theme}"><head><meta charset="utf-8">` +
    '<meta name="viewport" content="width=device-width, initial-scale=1">' +
    `<title>${escapeHtml(title)}</title><style>${STYLE}</style></head>` +
    `<body><header><a href="/links">Switchboard</a></header><main>${body}</main></body></html>`
  )
}

/** A short answer; `back` links to another page, e.g. the chooser again. */
export function messagePage(
  ctx: PageContext,
  status: number,
  heading: string,
  body: string,
  back?: { href: string; label: string },
): HtmlPage {
  const link =
    back === undefined
      ? ''
      : `<p><a href="${escapeHtml(back.href)}">${escapeHtml(back.label)}</a></p>`
  return {
    status,
    html: document(
      ctx,
      heading,
      `<h1>${escapeHtml(heading)}</h1><p>${escapeHtml(body)}</p>${link}`,
    ),
    csp: policy(),
  }
}

/** Not a slug at all: nothing to offer but the console. */
export function badSlugPage(ctx: PageContext): HtmlPage {
  return messagePage(ctx, 404, text(ctx.lang, 'badTitle'), text(ctx.lang, 'badText'), {
    href: '/links',
    label: text(ctx.lang, 'console'),
  })
}

/**
 * Create-on-miss: the slug names no link the person sees. The page offers to create it —
 * the console's link dialog opens with the slug filled in — and the closest slugs they do see.
 */
/** A similar go-link on the miss page: its slug, and where it leads, to tell them apart. */
export interface SimilarLink {
  slug: string
  title: string | null
  url: string
}

function similarItem(link: SimilarLink): string {
  const href = `/go/${encodeURIComponent(link.slug)}`
  const title = link.title === null ? '' : ` · ${escapeHtml(link.title)}`
  return (
    `<li><a class="mono" href="${href}">go/${escapeHtml(link.slug)}</a>${title}` +
    `<br><small>${escapeHtml(link.url)}</small></li>`
  )
}

export function missPage(
  ctx: PageContext,
  slug: string,
  similar: readonly SimilarLink[],
): HtmlPage {
  const t = (key: TextKey) => escapeHtml(text(ctx.lang, key, { slug }))
  const create = `/links?new=true&slug=${encodeURIComponent(slug)}`
  const list =
    similar.length === 0
      ? ''
      : `<h2>${t('similar')}</h2><ul>${similar.map(similarItem).join('')}</ul>`
  const body =
    `<h1>${t('missTitle')}</h1><p>${t('missText')}</p>` +
    `<p><a class="button" href="${escapeHtml(create)}">${t('create')}</a></p>${list}` +
    `<p><a href="/links">${t('console')}</a></p>`
  return {
    status: 404,
    html: document(ctx, text(ctx.lang, 'missTitle', { slug }), body),
    csp: policy(),
  }
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
 * can reorder the label — so no name, "Personal" included, can pass for another kind.
 */
export function sourceLabelHtml(source: CandidateSource, lang: PageLanguage = 'en'): string {
  if (source.kind === 'personal') return `<strong>${escapeHtml(text(lang, 'personal'))}</strong>`
  return `<strong>${escapeHtml(text(lang, 'organization'))}</strong> <bdi>${escapeHtml(source.name)}</bdi>`
}

/**
 * Several links share the slug: each can be opened once, or opened and remembered. Remembering is a
 * POST form carrying the session's CSRF token (forms cannot send X-CSRF-Token); without a session
 * (an API token) there is nothing to bind it to, so only the plain links are offered.
 */
export function chooserPage(
  ctx: PageContext,
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
          `<button type="submit">${escapeHtml(text(ctx.lang, 'remember'))}</button></form>`
    return (
      `<li><a href="${escapeHtml(link.url)}">${escapeHtml(link.title ?? link.url)}</a>` +
      `<p class="url">${escapeHtml(link.url)}</p><p class="source">${sourceLabelHtml(link.source, ctx.lang)}</p>${remember}</li>`
    )
  })
  const body = `<h1>go/${escapeHtml(slug)}</h1><p>${escapeHtml(text(ctx.lang, 'chooseText', { slug }))}</p><ul>${items.join('')}</ul>`
  return {
    status: 200,
    html: document(ctx, `go/${slug}`, body),
    csp: policy(candidates.map((link) => link.url)),
  }
}

export interface LinkDetails {
  id: string
  /** The reader may change the link (its creator, or an owner or admin of its organization). */
  editable: boolean
  title: string | null
  url: string
  source: CandidateSource
  createdAt: string
  updatedAt: string
  clicks30d: number
}

/**
 * "Created …, last changed …" with each moment as the console writes it in the page's language,
 * marked up as <time> for machines.
 */
function dates(ctx: PageContext, link: LinkDetails): string {
  const day = (iso: string) =>
    `<time datetime="${escapeHtml(iso)}">${escapeHtml(momentText(ctx.lang, iso))}</time>`
  // The sentence is escaped first; the placeholders are then filled with markup built above.
  return escapeHtml(text(ctx.lang, 'dates'))
    .replace('{created}', day(link.createdAt))
    .replace('{updated}', day(link.updatedAt))
}

/**
 * `/go/<slug>+`: what the go-link is — destination, owner, dates and clicks — without opening it,
 * and, for whoever may change it, the way to its edit dialog in the console.
 */
export function detailsPage(
  ctx: PageContext,
  slug: string,
  links: readonly LinkDetails[],
): HtmlPage {
  const t = (key: TextKey, values: Record<string, string | number> = {}) =>
    escapeHtml(text(ctx.lang, key, values))
  const items = links.map(
    (link) =>
      `<li><a href="${escapeHtml(link.url)}">${escapeHtml(link.title ?? link.url)}</a>` +
      `<p class="url">${escapeHtml(link.url)}</p><p class="source"><strong>${t('owner')}</strong> ` +
      (link.source.kind === 'personal'
        ? t('ownerYou')
        : `${t('ownerOrganization')} <bdi>${escapeHtml(link.source.name)}</bdi>`) +
      '</p>' +
      `<p class="source">${dates(ctx, link)}</p>` +
      `<p class="source">${link.clicks30d === 1 ? t('clicksOne') : t('clicksMany', { count: numberText(ctx.lang, link.clicks30d) })}</p>` +
      (link.editable
        ? `<p><a href="/links?edit=${encodeURIComponent(link.id)}">${t('edit')}</a></p>`
        : '') +
      '</li>',
  )
  const body = `<h1>go/${escapeHtml(slug)}</h1><ul>${items.join('')}</ul>`
  return { status: 200, html: document(ctx, `go/${slug}+`, body), csp: policy() }
}
