import { sql, type Kysely } from 'kysely'
import type { MigrationEngine } from './column-types.js'

/**
 * PostgreSQL: an index of the pairs of neighbouring characters of each link's searched text (the
 * lower-cased title, URL and slug of 0120_link_search_stored_lower), which answers a search term
 * of two characters: the text contains such a term exactly when the term is one of its pairs.
 * pg_trgm's index answers from three characters on: a shorter pattern has no trigram to look up
 * (docs/decisions/0088-postgresql-two-character-terms-from-character-pairs.md).
 * `link_search_pairs(text)` lists the pairs, repeats included (GIN keeps each key once per row);
 * it is immutable, as an index expression must be, and reads nothing but its argument. The pending
 * list stays short, as the trigram index's. Nothing changes on SQLite.
 */
export async function up(db: Kysely<unknown>, engine: MigrationEngine): Promise<void> {
  if (engine !== 'postgres') return
  await sql`create function link_search_pairs(searched text)
    returns text[] language plpgsql immutable strict parallel safe as $$
    declare
      characters text[] := string_to_array(searched, null);
      pairs text[] := '{}';
    begin
      for i in 1 .. cardinality(characters) - 1 loop
        pairs := pairs || (characters[i] || characters[i + 1]);
      end loop;
      return pairs;
    end $$`.execute(db)
  await sql`create index links_search_pairs_idx on links
    using gin (link_search_pairs(search_lower)) with (gin_pending_list_limit = 64)`.execute(db)
}

export async function down(db: Kysely<unknown>, engine: MigrationEngine): Promise<void> {
  if (engine !== 'postgres') return
  await sql`drop index links_search_pairs_idx`.execute(db)
  await sql`drop function link_search_pairs(text)`.execute(db)
}
