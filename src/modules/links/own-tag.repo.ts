/**
 * "The tag is the reader's", for a statement that joins the tags of given links to `tags`. On
 * SQLite the column is written `+tags.user_id`: the unary plus keeps the planner from reading by
 * that term's index, which otherwise starts from the reader's tags and probes the links once per
 * tag, a cost that grows with every tag the person keeps (20 tags on a page of 50: 188 µs against
 * 54 when it reads the links' `link_tags` and checks each tag's owner;
 * docs/decisions/0055-links-page-one-read-for-its-extras.md). PostgreSQL chooses by its
 * statistics and reads the links' rows.
 */
import { sql, type RawBuilder } from 'kysely'
import { isPostgres } from '../../db/engine.js'
import type { Executor } from '../../db/schema.js'

export function isOwnTag(ex: Executor, userId: string): RawBuilder<boolean> {
  return isPostgres(ex)
    ? sql<boolean>`tags.user_id = ${userId}`
    : sql<boolean>`+tags.user_id = ${userId}`
}
