import { sql, type Kysely } from 'kysely'
import type { MigrationEngine } from './column-types.js'

/**
 * PostgreSQL: `audit_frontier_append(frontier, size, leaves)`, the audit tree head's frontier after
 * appending leaf hashes (hex) to a tree of `size` leaves — lib/merkle.ts Frontier.append, in SQL
 * (RFC 9162 §2.1.1: a node is SHA-256(0x01 ‖ left ‖ right)). With it one statement numbers an
 * append's leaves, writes its events and moves the head, so the head's row lock is taken by the
 * statement that writes and is held only until the COMMIT
 * (docs/decisions/0061-audit-append-in-one-statement.md). The frontier's text is the form the
 * service writes: a JSON list of lowercase hex hashes, largest subtree first, without spaces.
 * Nothing changes on SQLite.
 */
export async function up(db: Kysely<unknown>, engine: MigrationEngine): Promise<void> {
  if (engine !== 'postgres') return
  await sql`create function audit_frontier_append(frontier text, size bigint, leaves text[])
    returns text language plpgsql immutable strict as $$
    declare
      hashes bytea[] := array(select decode(h, 'hex')
        from json_array_elements_text(frontier::json) with ordinality as f(h, n) order by n);
      carry bytea;
      leaf text;
      tree_size bigint := size;
      depth bigint;
      top int;
    begin
      foreach leaf in array leaves loop
        carry := decode(leaf, 'hex');
        depth := tree_size;
        -- Each trailing 1 bit of the index merges the newest subtree with the carry.
        while depth % 2 = 1 loop
          top := cardinality(hashes);
          carry := sha256(decode('01', 'hex') || hashes[top] || carry);
          hashes := hashes[1:top - 1];
          depth := depth / 2;
        end loop;
        hashes := hashes || carry;
        tree_size := tree_size + 1;
      end loop;
      return coalesce((select '[' || string_agg('"' || encode(h, 'hex') || '"', ',' order by n)
        || ']' from unnest(hashes) with ordinality as u(h, n)), '[]');
    end
    $$`.execute(db)
}

export async function down(db: Kysely<unknown>, engine: MigrationEngine): Promise<void> {
  if (engine !== 'postgres') return
  await sql`drop function audit_frontier_append(text, bigint, text[])`.execute(db)
}
