/**
 * Column types per engine for migrations. Frozen like the migrations themselves: a change here
 * would rewrite history, so add a new helper instead of editing one.
 */
export type MigrationEngine = 'sqlite' | 'postgres'

export function columnTypes(engine: MigrationEngine) {
  return {
    /**
     * ISO-8601 text on SQLite (sorts and compares correctly as text); timestamptz on PostgreSQL.
     */
    timestamp: engine === 'postgres' ? ('timestamptz' as const) : ('text' as const),
    boolean: engine === 'postgres' ? ('boolean' as const) : ('integer' as const),
  }
}
