/**
 * Tags by the thousand, inserted straight into the database: the other people's tags beside the
 * caller's that the tag reads' index tests need (made through the API they would take minutes).
 */
import type { TestContext } from './app.js'
import { bareUserRow } from './factories.js'

/** `count` tags of the user, named `name(0)` …, with the ids `<userId>-tag-<i>`. */
export async function insertTags(
  t: TestContext,
  userId: string,
  count: number,
  name: (i: number) => string,
): Promise<void> {
  const now = new Date().toISOString()
  for (let start = 0; start < count; start += 250) {
    const rows = Array.from({ length: Math.min(250, count - start) }, (_, i) => {
      const tagName = name(start + i)
      return {
        id: `${userId}-tag-${start + i}`,
        user_id: userId,
        name: tagName,
        name_key: tagName.toLowerCase(),
        color: null,
        created_at: now,
        updated_at: now,
      }
    })
    await t.deps.db.insertInto('tags').values(rows).execute()
  }
}

/** `count` people (`stranger-0` …, rows only), each with `tagsEach` tags named as insertTags. */
export async function insertStrangersWithTags(
  t: TestContext,
  count: number,
  tagsEach: number,
  name: (i: number) => string,
): Promise<void> {
  const now = new Date().toISOString()
  for (let i = 0; i < count; i++) {
    const userId = `stranger-${i}`
    await t.deps.db.insertInto('users').values(bareUserRow(userId, now)).execute()
    await insertTags(t, userId, tagsEach, name)
  }
}
