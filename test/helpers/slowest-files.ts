/**
 * A Vitest reporter, beside the default one, that prints at the end of a run the slowest test
 * files: where the suite's time goes in this very run, without a second run to find out. For each
 * file, its project, when a worker took it (seconds after the run began), how long it took from
 * then to its end as the main process saw them (import, hooks and tests), and the sum of its tests
 * and hooks alone. A long file that starts late makes the run's tail long: the start column shows
 * it.
 *
 * `npm test` (scripts/test.mjs) adds it; by hand: `--reporter=default
 * --reporter=./test/helpers/slowest-files.ts`. SLOWEST_FILES sets how many rows (30).
 */
import path from 'node:path'
import { performance } from 'node:perf_hooks'
import type { Reporter, TestModule } from 'vitest/node'

const ROWS = Number(process.env.SLOWEST_FILES ?? 30)

const seconds = (ms: number) => `${(ms / 1000).toFixed(1)} s`

export default class SlowestFiles implements Reporter {
  private began = performance.now()
  private readonly started = new Map<string, number>()
  private readonly ended = new Map<string, number>()

  onTestRunStart(): void {
    this.began = performance.now()
  }

  /** Sent by the worker as it takes the file, before importing it. */
  onTestModuleQueued(module: TestModule): void {
    this.started.set(key(module), performance.now())
  }

  onTestModuleEnd(module: TestModule): void {
    this.ended.set(key(module), performance.now())
  }

  onTestRunEnd(modules: ReadonlyArray<TestModule>): void {
    const rows = modules
      .map((module) => {
        const start = this.started.get(key(module))
        const end = this.ended.get(key(module))
        const { duration } = module.diagnostic()
        return {
          name: `${module.project.name.padEnd(8)} ${path.relative(process.cwd(), module.moduleId)}`,
          start: start === undefined ? undefined : start - this.began,
          wall: start === undefined || end === undefined ? duration : end - start,
          duration,
        }
      })
      .sort((a, b) => b.wall - a.wall)
      .slice(0, ROWS)
    if (rows.length === 0) return
    const width = Math.max(...rows.map((row) => row.name.length))
    const lines = [
      '',
      `The ${rows.length} slowest test files (wall: start to end; tests: tests and hooks)`,
      `  ${'project  file'.padEnd(width)}   started      wall     tests`,
      ...rows.map((row) => {
        const started = row.start === undefined ? '?' : seconds(row.start)
        const columns = [started, seconds(row.wall), seconds(row.duration)]
        return `  ${row.name.padEnd(width)} ${columns.map((c) => c.padStart(9)).join(' ')}`
      }),
      '',
    ]
    process.stdout.write(`${lines.join('\n')}\n`)
  }
}

const key = (module: TestModule) => `${module.project.name}\0${module.moduleId}`
