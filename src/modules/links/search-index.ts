/**
 * The merge of the links' search index after a large import, run in steps between requests
 * (search-index.repo.ts; docs/decisions/0067-search-index-merged-after-an-import.md). A failing
 * step ends the run and is logged; the next large import starts another.
 */
import type { Deps } from '../../deps.js'
import { createStepwiseWork, type StepwiseWork } from '../../lib/stepwise-work.js'
import { mergeSearchIndexStep } from './search-index.repo.js'

export function createSearchIndexMerge(deps: Pick<Deps, 'db' | 'logger'>): StepwiseWork {
  return createStepwiseWork(
    () => mergeSearchIndexStep(deps.db),
    (error) => deps.logger.error({ err: error }, 'merging the links search index failed'),
  )
}
