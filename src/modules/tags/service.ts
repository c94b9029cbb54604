/**
 * Tags (docs/API.md#tags): each user's own labels for links. Names are unique per
 * user ignoring case, through a unique index on (user, lower-cased name); another user's tag is
 * simply not found.
 */
import type { Deps } from '../../deps.js'
import { isUniqueViolation } from '../../db/client.js'
import { pageWindow } from '../../db/keyset.js'
import { AppError, invalidField } from '../../errors.js'
import { newId } from '../../lib/ids.js'
import { toPage, type Page } from '../../lib/pagination.js'
import type { Caller } from '../../identity/caller.js'
import {
  deleteTag as deleteTagRow,
  findTag,
  findTagsByIds,
  insertTag,
  listTags as listTagRows,
  updateTag as updateTagRow,
  type TagRecord,
} from './repo.js'
import { tagNameKey } from './name-forms.js'
import type { CreateTagBody, TagListQuery, UpdateTagBody } from './schemas.js'

function tagNotFound(): AppError {
  return new AppError('NOT_FOUND', { message: 'No such tag.' })
}

function nameTaken(error: unknown): unknown {
  return isUniqueViolation(error)
    ? new AppError('ALREADY_EXISTS', {
        message: 'You already have a tag with this name.',
        details: 'name',
      })
    : error
}

const nameKey = tagNameKey

/** Colours are stored lower-case, so `#FFAA00` and `#ffaa00` read back alike. */
function normalizeColor(color: string | null | undefined): string | null | undefined {
  return color?.toLowerCase() ?? color
}

/**
 * A page of the caller's tags by name; with `q`, only the names containing it, any case; with
 * `ids`, those of the ids that are the caller's tags, all in one page (docs/API.md#tags).
 */
export async function listTags(
  deps: Deps,
  caller: Caller,
  query: TagListQuery,
): Promise<Page<TagRecord>> {
  if (query.ids !== undefined) return listTagsByIds(deps, caller, query)
  const window = pageWindow(query)
  const rows = await listTagRows(deps.db, caller.user.id, window, {
    ...(query.q !== undefined && { containing: nameKey(query.q) }),
    reachable: caller.grant?.organizations ?? undefined,
  })
  return toPage(
    rows,
    window.limit,
    ({ name_key: _key, ...tag }) => tag,
    (row) => [row.name_key, row.id],
  )
}

/** `ids` names the whole answer: a search or a later page of it has no meaning. */
async function listTagsByIds(
  deps: Deps,
  caller: Caller,
  query: TagListQuery,
): Promise<Page<TagRecord>> {
  if (query.q !== undefined || query.cursor !== undefined)
    throw invalidField('ids', 'cannot be combined with q or cursor')
  const ids = [...new Set(query.ids!.split(','))]
  const items = await findTagsByIds(
    deps.db,
    caller.user.id,
    ids,
    caller.grant?.organizations ?? undefined,
  )
  return { items, next_cursor: null }
}

export async function getTag(deps: Deps, caller: Caller, tagId: string): Promise<TagRecord> {
  const tag = await findTag(
    deps.db,
    caller.user.id,
    tagId,
    caller.grant?.organizations ?? undefined,
  )
  if (tag === null) throw tagNotFound()
  return tag
}

export async function createTag(
  deps: Deps,
  caller: Caller,
  input: CreateTagBody,
): Promise<TagRecord> {
  const now = deps.clock.now().toISOString()
  const tag = {
    id: newId(),
    name: input.name,
    color: normalizeColor(input.color) ?? null,
    created_at: now,
    updated_at: now,
  }
  try {
    await insertTag(deps.db, { ...tag, user_id: caller.user.id, name_key: nameKey(tag.name) })
  } catch (error) {
    throw nameTaken(error)
  }
  return { ...tag, link_count: 0 }
}

export async function updateTag(
  deps: Deps,
  caller: Caller,
  tagId: string,
  patch: UpdateTagBody,
): Promise<TagRecord> {
  const changes = {
    ...(patch.name !== undefined && { name: patch.name, name_key: nameKey(patch.name) }),
    ...(patch.color !== undefined && { color: normalizeColor(patch.color) }),
    updated_at: deps.clock.now().toISOString(),
  }
  try {
    return await deps.db.transaction().execute(async (tx) => {
      if (!(await updateTagRow(tx, caller.user.id, tagId, changes))) throw tagNotFound()
      return (await findTag(tx, caller.user.id, tagId, caller.grant?.organizations ?? undefined))!
    })
  } catch (error) {
    throw nameTaken(error)
  }
}

/** Deletes the tag; the links it was on stay, without it. */
export async function deleteTag(deps: Deps, caller: Caller, tagId: string): Promise<void> {
  if (!(await deleteTagRow(deps.db, caller.user.id, tagId))) throw tagNotFound()
}
