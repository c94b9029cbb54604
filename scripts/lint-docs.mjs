#!/usr/bin/env node
/**
 * `npm run lint:docs` (part of `npm run lint`): the documents stay reference and the comments say
 * what is true now (docs/ARCHITECTURE.md, convention 12). Fails when
 *
 * - an issue number (the word "issue" and a number, "#" allowed between) appears in the code,
 *   its comments and test names (src, web/src, web/e2e, test, bench, scripts — the generated
 *   web/src/api/schema.d.ts carries every text of the OpenAPI document), in README.md or in
 *   docs/; the test of this script also checks the document the built application serves;
 * - the code or the documents cite the specification's contract file instead of docs/;
 * - README.md is larger than 35 KB, or docs/ARCHITECTURE.md larger than 15 KB;
 * - a `docs/API.md#<section>` cited anywhere names no heading of docs/API.md, or a cited
 *   `docs/decisions/NNNN-….md` does not exist;
 * - a document links outside the repository's tree (`../shared`, `/work/`);
 * - a comment line in the code is longer than 100 characters (Prettier wraps code, not comments).
 */
import fs from 'node:fs'
import path from 'node:path'

export const README_MAX_BYTES = 35_000
export const ARCHITECTURE_MAX_BYTES = 15_000
export const COMMENT_MAX_CHARACTERS = 100

const CODE_DIRECTORIES = ['src', 'web/src', 'web/e2e', 'test', 'bench', 'scripts']
const CODE_FILE = /\.(ts|tsx|mts|cts|js|mjs|cjs|css|html|json)$/
const COMMENTED_FILE = /\.(ts|tsx|mts|cts|js|mjs|cjs|css)$/
const SKIPPED_DIRECTORIES = new Set(['node_modules', 'dist', 'screenshots'])
/** Generated from the OpenAPI document: its lines are the document's texts, not comments. */
const GENERATED = new Set(['web/src/api/schema.d.ts'])

const ISSUE_NUMBER = /\bissues?\s+#?\d/i
const CONTRACT_FILE = /\bCONTRACT\.md\b/
const OUTSIDE_LINK = /(\.\.\/shared\/|\/work\/)/
const COMMENT_LINE = /^\s*(\/\/|\/\*|\*|\{\/\*)/
const API_SECTION = /docs\/API\.md#([a-z0-9-]+)((?:,\s*#[a-z0-9-]+)*)/g
const DECISION = /docs\/decisions\/(\d{4}-[a-z0-9-]+\.md)/g
const LOCAL_SECTION = /\]\(#([a-z0-9-]+)\)/g

/** GitHub's anchor for a heading: lower case, punctuation dropped, spaces as hyphens. */
export function headingAnchor(heading) {
  return heading
    .trim()
    .toLowerCase()
    .replace(/[^\p{L}\p{N}_\- ]/gu, '')
    .replace(/ /g, '-')
}

/** Every anchor the headings of a Markdown text define (a repeated heading gets -1, -2, …). */
export function headingAnchors(markdown) {
  const anchors = new Set()
  const seen = new Map()
  for (const [, heading] of markdown.matchAll(/^#{1,6} (.+)$/gm)) {
    const anchor = headingAnchor(heading)
    const count = seen.get(anchor) ?? 0
    seen.set(anchor, count + 1)
    anchors.add(count === 0 ? anchor : `${anchor}-${count}`)
  }
  return anchors
}

function walk(root, directory, found) {
  const absolute = path.join(root, directory)
  if (!fs.existsSync(absolute)) return found
  for (const entry of fs.readdirSync(absolute, { withFileTypes: true })) {
    if (SKIPPED_DIRECTORIES.has(entry.name)) continue
    const relative = path.posix.join(directory, entry.name)
    if (entry.isDirectory()) walk(root, relative, found)
    else found.push(relative)
  }
  return found
}

/** The files the check reads, relative to `root`. */
export function filesToCheck(root) {
  const code = CODE_DIRECTORIES.flatMap((directory) => walk(root, directory, [])).filter((file) =>
    CODE_FILE.test(file),
  )
  const documents = ['README.md', ...walk(root, 'docs', []).filter((file) => file.endsWith('.md'))]
  return { code, documents: documents.filter((file) => fs.existsSync(path.join(root, file))) }
}

/**
 * The problems of the text of one file: issue numbers, contract citations, outside links, long
 * comment lines, and sections or decision records cited that do not exist.
 */
export function textProblems(file, text, { apiAnchors, decisionExists, isCode }) {
  const problems = []
  const lines = text.split('\n')
  const commented = isCode && COMMENTED_FILE.test(file) && !GENERATED.has(file)
  lines.forEach((line, index) => {
    const at = { file, line: index + 1 }
    if (ISSUE_NUMBER.test(line))
      problems.push({ ...at, problem: 'an issue number: say the rule and its reason instead' })
    if (CONTRACT_FILE.test(line))
      problems.push({
        ...at,
        problem: 'cites the contract file: cite docs/API.md#<section> instead',
      })
    if (!isCode && OUTSIDE_LINK.test(line))
      problems.push({ ...at, problem: 'links outside the repository' })
    if (commented && line.length > COMMENT_MAX_CHARACTERS && COMMENT_LINE.test(line))
      problems.push({
        ...at,
        problem: `a comment line of ${line.length} characters (at most ${COMMENT_MAX_CHARACTERS})`,
      })
    for (const [, first, more] of line.matchAll(API_SECTION)) {
      const anchors = [first, ...[...more.matchAll(/#([a-z0-9-]+)/g)].map(([, anchor]) => anchor)]
      for (const anchor of anchors)
        if (!apiAnchors.has(anchor))
          problems.push({ ...at, problem: `docs/API.md has no section #${anchor}` })
    }
    for (const [, record] of line.matchAll(DECISION))
      if (!decisionExists(record))
        problems.push({ ...at, problem: `docs/decisions/${record} does not exist` })
  })
  return problems
}

/** Every problem of the repository at `root`; `openApiText`, when given, is checked as well. */
export function findDocProblems(root, { openApiText } = {}) {
  const read = (file) => fs.readFileSync(path.join(root, file), 'utf8')
  const apiPath = path.join(root, 'docs/API.md')
  const apiText = fs.existsSync(apiPath) ? fs.readFileSync(apiPath, 'utf8') : ''
  const context = {
    apiAnchors: headingAnchors(apiText),
    decisionExists: (record) => fs.existsSync(path.join(root, 'docs/decisions', record)),
  }
  const { code, documents } = filesToCheck(root)
  const problems = [
    ...code.flatMap((file) => textProblems(file, read(file), { ...context, isCode: true })),
    ...documents.flatMap((file) => textProblems(file, read(file), { ...context, isCode: false })),
  ]
  for (const match of apiText.matchAll(LOCAL_SECTION))
    if (!context.apiAnchors.has(match[1]))
      problems.push({ file: 'docs/API.md', line: 0, problem: `no section #${match[1]} to link to` })
  if (openApiText !== undefined && ISSUE_NUMBER.test(openApiText))
    problems.push({
      file: '/api/openapi.json',
      line: 0,
      problem: 'an issue number in the document',
    })
  for (const [file, limit] of [
    ['README.md', README_MAX_BYTES],
    ['docs/ARCHITECTURE.md', ARCHITECTURE_MAX_BYTES],
  ]) {
    const absolute = path.join(root, file)
    const size = fs.existsSync(absolute) ? fs.statSync(absolute).size : 0
    if (size > limit)
      problems.push({ file, line: 0, problem: `${size} bytes, more than the ${limit} allowed` })
  }
  return problems
}

if (process.argv[1] !== undefined && path.resolve(process.argv[1]) === import.meta.filename) {
  const problems = findDocProblems(path.resolve(import.meta.dirname, '..'))
  for (const { file, line, problem } of problems)
    console.error(`${file}${line > 0 ? `:${line}` : ''}: ${problem}`)
  if (problems.length > 0) {
    console.error(`lint:docs: ${problems.length} problem(s)`)
    process.exitCode = 1
  }
}
