import { sql, type Kysely } from 'kysely'
import type { MigrationEngine } from './column-types.js'

/**
 * The cost of an audited write: an append no longer writes the tree's nodes in the
 * request's transaction — only the event (with its leaf number) and the tree head's size and
 * frontier. The nodes (leaf hashes and the perfect subtrees above them) are stored later, in
 * batches, by the checkpointer and before anything reads them (modules/audit/checkpoints.ts
 * `materializeTree`). `materialized_size`: how many leaves have their nodes stored; every tree
 * so far has all of them.
 */
export async function up(db: Kysely<unknown>, engine: MigrationEngine): Promise<void> {
  await db.schema
    .alterTable('audit_tree_head')
    .addColumn('materialized_size', engine === 'postgres' ? 'bigint' : 'integer', (c) =>
      c.notNull().defaultTo(0),
    )
    .execute()
  await sql`update audit_tree_head set materialized_size = size`.execute(db)
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await db.schema.alterTable('audit_tree_head').dropColumn('materialized_size').execute()
}
