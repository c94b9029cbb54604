import { sql, type Kysely } from 'kysely'
import type { MigrationEngine } from './column-types.js'

/**
 * How many links carry each tag, by the links' owner (their organization, else their person):
 * `tag_link_counts`, kept by triggers on every write of `link_tags` and of a link's owner, so that
 * a tag list reads a few counts per tag instead of every tagged link
 * (docs/decisions/0086-tag-link-counts-kept-by-owner.md). A link deleted takes its tags' counts
 * with it before its `link_tags` rows go (their own trigger then finds no link and changes
 * nothing); a tag deleted takes its counts. On PostgreSQL a tag put on or taken off reads the
 * link's owner under a share lock, so that it and a change of the owner wait for each other and
 * the count follows the owner either way. Filled here from the tags already on links.
 */
export async function up(db: Kysely<unknown>, engine: MigrationEngine): Promise<void> {
  await db.schema
    .createTable('tag_link_counts')
    // No foreign key: a change of a link's owner racing the deletion of one of its tags must not
    // fail on the count; the tag's trigger removes the counts, and a row left by such a race is
    // never read (counts are read by the person's tags).
    .addColumn('tag_id', 'text', (c) => c.notNull())
    .addColumn('owner_id', 'text', (c) => c.notNull())
    .addColumn('link_count', 'integer', (c) => c.notNull())
    .addPrimaryKeyConstraint('tag_link_counts_pkey', ['tag_id', 'owner_id'])
    .execute()
  await sql`insert into tag_link_counts (tag_id, owner_id, link_count)
    select link_tags.tag_id, coalesce(links.organization_id, links.user_id), count(*)
    from link_tags inner join links on links.id = link_tags.link_id
    group by link_tags.tag_id, coalesce(links.organization_id, links.user_id)`.execute(db)
  const postgres = engine === 'postgres'
  for (const statement of postgres ? postgresTriggers() : sqliteTriggers())
    await sql.raw(statement).execute(db)
}

export async function down(db: Kysely<unknown>, engine: MigrationEngine): Promise<void> {
  for (const [name, table] of TRIGGERS)
    await sql
      .raw(engine === 'postgres' ? `drop trigger ${name} on ${table}` : `drop trigger ${name}`)
      .execute(db)
  if (engine === 'postgres')
    for (const [name] of TRIGGERS) await sql.raw(`drop function ${name}()`).execute(db)
  await db.schema.dropTable('tag_link_counts').execute()
}

const TRIGGERS = [
  ['link_tags_count_insert', 'link_tags'],
  ['link_tags_count_delete', 'link_tags'],
  ['links_tag_counts_delete', 'links'],
  ['links_tag_counts_owner', 'links'],
  ['tags_link_counts_delete', 'tags'],
] as const

const OWNER = (row: string) => `coalesce(${row}.organization_id, ${row}.user_id)`

/** A tag put on a link: one more for the link's owner (`lock`: PostgreSQL's `for share`). */
const addOne = (lock: string) => `insert into tag_link_counts (tag_id, owner_id, link_count)
  select new.tag_id, ${OWNER('links')}, 1 from links where links.id = new.link_id ${lock}
  on conflict (tag_id, owner_id) do update set link_count = tag_link_counts.link_count + 1`

/** A tag taken off a link that still exists (a link deleted has taken its counts already). */
const takeOne = (lock: string) => `update tag_link_counts set link_count = link_count - 1
  where tag_id = old.tag_id
    and owner_id = (select ${OWNER('links')} from links where links.id = old.link_id ${lock})`

/** A tag deleted: its counts go. */
const TAKE_TAG = `delete from tag_link_counts where tag_id = old.id`

/** A link deleted, before its tags go: one less for its owner in each of its tags. */
const TAKE_LINK = `update tag_link_counts set link_count = link_count - 1
  where owner_id = ${OWNER('old')}
    and tag_id in (select link_tags.tag_id from link_tags where link_tags.link_id = old.id)`

/** A link's owner changed: each of its tags counts it for the new owner instead of the old. */
const MOVE_LINK = [
  TAKE_LINK,
  `insert into tag_link_counts (tag_id, owner_id, link_count)
    select link_tags.tag_id, ${OWNER('new')}, 1 from link_tags where link_tags.link_id = new.id
    on conflict (tag_id, owner_id) do update set link_count = tag_link_counts.link_count + 1`,
]

const OWNER_CHANGED = `${OWNER('new')} is distinct from ${OWNER('old')}`

/** SQLite serialises its writers: no lock is taken. */
const sqliteTriggers = () => [
  `create trigger link_tags_count_insert after insert on link_tags begin ${addOne('')}; end`,
  `create trigger link_tags_count_delete after delete on link_tags begin ${takeOne('')}; end`,
  `create trigger links_tag_counts_delete before delete on links begin ${TAKE_LINK}; end`,
  `create trigger links_tag_counts_owner after update of user_id, organization_id on links
    when ${OWNER('new')} is not ${OWNER('old')}
    begin ${MOVE_LINK.join('; ')}; end`,
  `create trigger tags_link_counts_delete after delete on tags begin ${TAKE_TAG}; end`,
]

const postgresTrigger = (
  name: string,
  table: string,
  when: string,
  body: string,
  result: 'null' | 'old',
) => [
  `create function ${name}() returns trigger language plpgsql as $$
    begin ${body}; return ${result}; end $$`,
  `create trigger ${name} ${when} on ${table} for each row execute function ${name}()`,
]

const postgresTriggers = () => [
  ...postgresTrigger(
    'link_tags_count_insert',
    'link_tags',
    'after insert',
    addOne('for share'),
    'null',
  ),
  ...postgresTrigger(
    'link_tags_count_delete',
    'link_tags',
    'after delete',
    takeOne('for share'),
    'null',
  ),
  ...postgresTrigger('links_tag_counts_delete', 'links', 'before delete', TAKE_LINK, 'old'),
  ...postgresTrigger(
    'links_tag_counts_owner',
    'links',
    'after update of user_id, organization_id',
    `if ${OWNER_CHANGED} then ${MOVE_LINK.join('; ')}; end if`,
    'null',
  ),
  ...postgresTrigger('tags_link_counts_delete', 'tags', 'after delete', TAKE_TAG, 'null'),
]
