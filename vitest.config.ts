/**
 * The suite runs once per database engine: always on SQLite, and again on PostgreSQL whenever
 * TEST_DATABASE_URL is set or a server answers on 127.0.0.1:5432. With CI=true the PostgreSQL run
 * is mandatory: a CI that silently skipped it would prove nothing about production. Tests of the
 * shared Redis state (*.redis.test.ts) follow the same rule for a Redis server on 127.0.0.1:6379,
 * and the container image's test (test/container.sqlite.test.ts) for podman on the PATH.
 */
import { spawnSync } from 'node:child_process'
import net from 'node:net'
import { availableParallelism } from 'node:os'
import { defineConfig } from 'vitest/config'
import { testPostgresUrl } from './test/helpers/database.js'
import { ENGINE_FREE } from './test/helpers/engine-free.js'

function answers(url: string, defaultPort: number): Promise<boolean> {
  const { hostname, port } = new URL(url)
  return new Promise((resolve) => {
    const socket = net.connect({ host: hostname, port: Number(port || defaultPort) })
    socket.setTimeout(1000)
    socket.once('connect', () => {
      socket.destroy()
      resolve(true)
    })
    socket.once('timeout', () => {
      socket.destroy()
      resolve(false)
    })
    socket.once('error', () => resolve(false))
  })
}

export default defineConfig(async () => {
  const postgresUrl = testPostgresUrl()
  const redisUrl = process.env.TEST_REDIS_URL ?? 'redis://127.0.0.1:6379'
  const [postgres, redis] = await Promise.all([answers(postgresUrl, 5432), answers(redisUrl, 6379)])
  for (const [name, up, url] of [
    ['PostgreSQL', postgres, postgresUrl],
    ['Redis', redis, redisUrl],
  ] as const) {
    if (up) continue
    if (process.env.CI === 'true')
      throw new Error(
        `CI=true requires ${name} for the test suite, but nothing answers at ${new URL(url).host}`,
      )
    console.warn(
      `${name} not reachable at ${new URL(url).host}: its tests do not run (they are mandatory with CI=true)`,
    )
  }

  const podman = spawnSync('podman', ['--version'], { stdio: 'ignore' }).status === 0
  if (!podman) {
    if (process.env.CI === 'true')
      throw new Error('CI=true requires podman for the container image test (.ci/run installs it)')
    console.warn(
      'podman not found: the container image test does not run (it is mandatory with CI=true)',
    )
  }
  const CONTAINER_TEST = 'test/container.sqlite.test.ts'

  const engines = postgres ? ['sqlite', 'postgres'] : ['sqlite']
  return {
    test: {
      include: ['src/**/*.test.ts', 'test/**/*.test.ts'],
      // Tests of the shared Redis state need the server; *.redis.test.ts files run whenever it answers.
      exclude: ['**/node_modules/**', ...(redis ? [] : ['**/*.redis.test.ts']), CONTAINER_TEST],
      testTimeout: 30_000,
      hookTimeout: 60_000,
      pool: 'forks',
      // Where the time went (vitest's phase totals): importing the application — Fastify, every
      // module, Stripe, OIDC, SMTP and Redis clients — again for each of the ~120 files took more
      // than a quarter of the run. Test files share nothing through module state (each builds
      // its own app, deps and database in beforeAll), so a worker keeps its module cache from
      // file to file and imports once.
      isolate: false,
      // One worker per core: vitest's default (cores − 1) ran one file at a time on a 2-core
      // machine, leaving a core idle while a file waited on its database. More workers than cores
      // starve the process tests' own server processes of CPU.
      maxWorkers: Math.max(2, availableParallelism()),
      projects: [
        ...engines.map((engine) => ({
          extends: true as const,
          test: {
            name: engine,
            // Engine-specific fault tests: *.postgres.test.ts and *.sqlite.test.ts run on their engine only.
            exclude: [
              '**/node_modules/**',
              ...(redis ? [] : ['**/*.redis.test.ts']),
              CONTAINER_TEST,
              `**/*.${engine === 'sqlite' ? 'postgres' : 'sqlite'}.test.ts`,
              ...(engine === 'postgres' ? ENGINE_FREE : []),
            ],
            env: {
              TEST_DB: engine,
              TEST_REDIS_URL: redisUrl,
              ...(engine === 'postgres' && { TEST_DATABASE_URL: postgresUrl }),
            },
            ...(engine === 'postgres' && {
              globalSetup: ['test/helpers/postgres-global-setup.ts'],
            }),
          },
        })),
        // The container image test in a project of its own, which `npm test` (scripts/test.mjs)
        // runs as a separate Vitest process from the start: most of its time is podman building
        // the image, during which it would hold one of the suite's two workers.
        ...(podman
          ? [
              {
                test: {
                  name: 'container',
                  include: [CONTAINER_TEST],
                  env: { TEST_DB: 'sqlite' },
                  pool: 'forks' as const,
                  testTimeout: 1_200_000,
                },
              },
            ]
          : []),
        // The web console: its unit tests and the Chromium end-to-end suite, once, on SQLite. Not
        // `extends`: that would add the service's include patterns to this project's.
        {
          test: {
            name: 'console',
            include: ['web/src/**/*.test.ts', 'web/e2e/**/*.test.ts'],
            env: { TEST_DB: 'sqlite' },
            pool: 'forks' as const,
            // As in the engine projects: a worker imports Playwright, the harness and the stand-ins
            // once, not once per file. Each browser file starts its own server in beforeAll and
            // keeps its state in its own module; it opens its own contexts in the worker's one
            // Chromium, which the harness keeps from file to file (web/e2e/harness.ts).
            isolate: false,
            testTimeout: 120_000,
            hookTimeout: 60_000,
            // A page's answer can take seconds on a loaded 2-core machine (the AI settings' first
            // outbound call loads its HTTP client, say): vitest's 1 s default for expect.poll failed
            // a console test in CI. A poll still ends as soon as its condition holds.
            expect: { poll: { timeout: 10_000 } },
          },
        },
      ],
    },
  }
})
