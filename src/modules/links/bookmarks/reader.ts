/**
 * Reads an import file as it arrives: a bookmark file or a JSON export, from the
 * request's body stream (POST /api/links/import/file) or from the `content` of the JSON request
 * (POST /api/links/import).
 *
 * Promises: the file is never held whole — it passes through in pieces of at most PIECE_BYTES to
 * a reader that keeps no element tree (netscape.ts, json-format.ts), so the work is linear in its
 * length and memory is what the bookmarks themselves keep; the event loop is given back whenever a
 * stretch of reading has run for SLICE_MS, so other requests (a health check, another user's
 * sign-in) wait at most about that long; a body over the limit is a 413 as soon as it is known
 * (its Content-Length, or the byte that passes the limit), and the bookmark past the most one
 * import takes is a 400 at once. Nothing is written before the whole file has been read.
 */
import { nextTurn } from '../../../lib/event-loop-turns.js'
import { AppError, invalidField } from '../../../errors.js'
import type { BookmarkCandidate } from './candidate.js'
import { createJsonLinksReader, type CollectionCandidate } from './json-format.js'
import { createNetscapeReader } from './netscape.js'

/**
 * The most one piece of reading covers before the clock is checked: well under a millisecond of
 * tokenizing.
 */
const PIECE_BYTES = 16 * 1024
/** How long reading may run before it lets the event loop serve others. */
const SLICE_MS = 10

export type ImportFormat = 'html' | 'json'

export interface ImportFile {
  format: ImportFormat
  /** The file: as text (the JSON request's `content`), or as the bytes of a request body. */
  content: string | AsyncIterable<Uint8Array>
  /**
   * The most bytes the body may have (for a stream; a string's size was checked with its request).
   */
  limitBytes: number
  /**
   * A bookmark file's folders also become a tag on each bookmark (default false: they become
   * collections, always).
   */
  foldersAsTags?: boolean
}

export function tooLarge(limitBytes: number): AppError {
  return new AppError('PAYLOAD_TOO_LARGE', {
    message: `The file is larger than ${limitBytes / (1024 * 1024)} MiB.`,
  })
}

/**
 * When an import last gave the event loop back. A slice counts from there, not from when its
 * slicer was made: an import's steps (look-ups, inserts, the commit, the next part) each make their
 * own, and counted apart they ran one after another for over 100 ms without giving way.
 */
let lastTurn = performance.now()

/** Gives the event loop back once work has run for SLICE_MS since it was last given back. */
export function timeSlicer(): () => Promise<void> {
  return async () => {
    if (performance.now() - lastTurn < SLICE_MS) return
    await nextTurn()
    lastTurn = performance.now()
  }
}

/**
 * The pieces of a text, never cutting a surrogate pair (its halves would become two U+FFFD in
 * UTF-8).
 */
function* textPieces(text: string): Generator<string> {
  for (let start = 0; start < text.length;) {
    let end = Math.min(start + PIECE_BYTES, text.length)
    if (end < text.length && /[\ud800-\udbff]/.test(text[end - 1]!)) end--
    yield text.slice(start, end)
    start = end
  }
}

async function* bytePieces(
  body: AsyncIterable<Uint8Array>,
  limitBytes: number,
): AsyncGenerator<Uint8Array> {
  let received = 0
  try {
    for await (const chunk of body) {
      received += chunk.length
      if (received > limitBytes) throw tooLarge(limitBytes)
      for (let start = 0; start < chunk.length; start += PIECE_BYTES)
        yield chunk.subarray(start, start + PIECE_BYTES)
    }
  } catch (error) {
    if (error instanceof AppError) throw error
    // The client went away or the connection broke in the middle of the upload.
    throw new AppError('VALIDATION_FAILED', { message: 'The upload ended before the file did.' })
  }
}

/**
 * Passes every bookmark (JSON: every item; null for one that is not an object) to `onCandidate`
 * in file order, and a JSON export's collections to `onCollection`. Fails the file as a whole —
 * not a bookmark file, not JSON — with a 400 on `content`; what `onCandidate` throws (the import's
 * cap) stops reading at once.
 */
export async function readImportFile(
  file: ImportFile,
  onCandidate: (candidate: BookmarkCandidate | null) => void,
  onCollection: (collection: CollectionCandidate) => void = () => {},
): Promise<void> {
  const pause = timeSlicer()
  if (file.format === 'json') {
    const reader = await createJsonLinksReader(onCandidate, onCollection)
    if (typeof file.content === 'string') {
      for (const piece of textPieces(file.content)) {
        reader.write(Buffer.from(piece))
        await pause()
      }
    } else {
      for await (const piece of bytePieces(file.content, file.limitBytes)) {
        reader.write(piece)
        await pause()
      }
    }
    reader.end()
    return
  }

  let bookmarks = 0
  const reader = await createNetscapeReader(
    (bookmark) => {
      bookmarks++
      onCandidate(bookmark)
    },
    { foldersAsTags: file.foldersAsTags ?? false },
  )
  if (typeof file.content === 'string') {
    for (const piece of textPieces(file.content)) {
      reader.write(piece)
      await pause()
    }
  } else {
    // Browsers write bookmark files in UTF-8; a stray invalid byte becomes U+FFFD, as an HTML
    // parser does.
    const decoder = new TextDecoder('utf-8')
    for await (const piece of bytePieces(file.content, file.limitBytes)) {
      reader.write(decoder.decode(piece, { stream: true }))
      await pause()
    }
    reader.write(decoder.decode())
  }
  reader.end()
  if (!reader.isBookmarkFile && bookmarks === 0) {
    throw invalidField(
      'content',
      'is not a bookmark file (the Netscape bookmark HTML that browsers export)',
    )
  }
}
