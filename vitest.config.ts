/**
 * The suite runs once per database engine: always on SQLite, and again on PostgreSQL whenever
 * TEST_DATABASE_URL is set or a server answers on 127.0.0.1:5432. With CI=true the PostgreSQL run
 * is mandatory: a CI that silently skipped it would prove nothing about production.
 */
import net from 'node:net'
import { defineConfig } from 'vitest/config'
import { testPostgresUrl } from './test/helpers/database.js'

function answers(url: string): Promise<boolean> {
  const { hostname, port } = new URL(url)
  return new Promise((resolve) => {
    const socket = net.connect({ host: hostname, port: Number(port || 5432) })
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
  const postgres = await answers(postgresUrl)
  if (!postgres && process.env.CI === 'true') {
    throw new Error(`CI=true requires PostgreSQL for the test suite, but nothing answers at ${new URL(postgresUrl).host}`)
  }
  if (!postgres) console.warn(`PostgreSQL not reachable at ${new URL(postgresUrl).host}: running the suite on SQLite only`)

  const engines = postgres ? ['sqlite', 'postgres'] : ['sqlite']
  return {
    test: {
      include: ['src/**/*.test.ts', 'test/**/*.test.ts'],
      testTimeout: 30_000,
      hookTimeout: 60_000,
      pool: 'forks',
      projects: engines.map((engine) => ({
        extends: true as const,
        test: {
          name: engine,
          env: { TEST_DB: engine, ...(engine === 'postgres' && { TEST_DATABASE_URL: postgresUrl }) },
          ...(engine === 'postgres' && { globalSetup: ['test/helpers/postgres-global-setup.ts'] }),
        },
      })),
    },
  }
})
