/**
 * PostgreSQL: the planner's statistics kept current by the service itself. PostgreSQL plans each
 * statement from what the last ANALYZE of a table found; autovacuum refreshes that once a table
 * has changed by a tenth — when it runs. A server with autovacuum off (a CI database, an operator's
 * choice) would plan a company's links and people with the statistics of a new instance's empty
 * tables (docs/decisions/0070-planner-statistics-kept-by-the-service.md). So at start and then
 * every minute each instance analyzes the tables past autovacuum's own threshold; where autovacuum
 * runs, it has mostly done so already and this finds nothing. SQLite plans without statistics.
 */
import type { FastifyInstance } from 'fastify'
import type { Deps } from '../../deps.js'
import { isPostgres } from '../../db/engine.js'
import { runWhileOpen } from '../../plugins/periodic.js'
import { analyzeTable, findStaleTables } from './statistics.repo.js'

const INTERVAL_MS = 60_000

/**
 * Analyzes every stale table, one transaction each; returns those analyzed. An aborted `signal`
 * (the service closing) leaves the tables not yet begun to the next look.
 */
export async function refreshStaleStatistics(deps: Deps, signal?: AbortSignal): Promise<string[]> {
  if (!isPostgres(deps.db)) return []
  const analyzed: string[] = []
  for (const name of await findStaleTables(deps.db)) {
    if (signal?.aborted) break
    if (await deps.db.transaction().execute((tx) => analyzeTable(tx, name))) analyzed.push(name)
  }
  return analyzed
}

/** Runs the refresh when the application is ready and then every minute, until it closes. */
export function installStatisticsKeeper(app: FastifyInstance, deps: Deps): void {
  if (!isPostgres(deps.db)) return
  runWhileOpen(app, {
    everyMs: INTERVAL_MS,
    atReady: true,
    pass: async (signal) => {
      const tables = await refreshStaleStatistics(deps, signal)
      if (tables.length > 0) deps.logger.info({ tables }, 'refreshed planner statistics')
    },
    onError: (error) =>
      deps.logger.warn(
        { error: { message: error.message } },
        'could not refresh the planner statistics',
      ),
  })
}
