/**
 * `switchboard doctor`: every check with a good and a bad configuration, on the real database of
 * the run's engine, the SMTP stand-in and a closed port; and the command's lines and exit code.
 */
import fs from 'node:fs'
import net from 'node:net'
import path from 'node:path'
import { Readable } from 'node:stream'
import { sql } from 'kysely'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { useTestApp } from '../../../test/helpers/app.js'
import { makeTempDir, testEngine } from '../../../test/helpers/database.js'
import { bearer, createSignedInUser, DEFAULT_PASSWORD } from '../../../test/helpers/factories.js'
import { SMTP_PASSWORD, SMTP_USERNAME } from '../../../test/helpers/secret-scan.js'
import { startSmtpStandIn, type SmtpStandIn } from '../../../test/helpers/smtp-server.js'
import { runCli } from '../../cli.js'
import { runDoctor, type CheckResult } from './doctor.js'

const t = useTestApp()
let smtp: SmtpStandIn
let closedPort: number

beforeAll(async () => {
  smtp = await startSmtpStandIn({
    credentials: { username: SMTP_USERNAME, password: SMTP_PASSWORD },
  })
  // A port that was just free and is closed again: connections are refused at once.
  closedPort = await new Promise<number>((resolve) => {
    const server = net.createServer().listen(0, '127.0.0.1', () => {
      const { port } = server.address() as net.AddressInfo
      server.close(() => resolve(port))
    })
  })
})
afterAll(async () => smtp?.close())

function find(results: CheckResult[], check: string): CheckResult {
  const result = results.find((r) => r.check === check)
  expect(result, `${check} in ${JSON.stringify(results)}`).toBeDefined()
  return result!
}

async function doctor(
  env: Record<string, string | undefined>,
  check: string,
): Promise<CheckResult> {
  return find(await runDoctor(env, { timeoutMs: 3000 }), check)
}

async function cli(env: Record<string, string | undefined>) {
  let stdout = ''
  const code = await runCli(['doctor'], {
    env,
    stdin: Readable.from(['']),
    stdout: { write: (text: string) => (stdout += text) },
    stderr: { write: () => undefined },
  })
  return { code, stdout }
}

describe('switchboard doctor', () => {
  it('configuration: parses as the service would; a broken one is one fail line with every problem, nothing else checked', async () => {
    expect(await doctor(t.env, 'configuration')).toMatchObject({ status: 'ok' })
    const results = await runDoctor({ ...t.env, PORT: 'eighty', JWT_SECRET: 'too-short-secret' })
    expect(results).toHaveLength(1)
    expect(results[0]).toMatchObject({ check: 'configuration', status: 'fail' })
    expect(results[0]!.message).toMatch(/PORT: .*JWT_SECRET: /)
    expect(results[0]!.message).not.toContain('too-short-secret')
  })

  it('data directory: 0700 is ok; wider is a warning; a file in its place fails; missing is a warning', async () => {
    const dataDir = makeTempDir()
    fs.chmodSync(dataDir, 0o700)
    expect(await doctor({ ...t.env, DATA_DIR: dataDir }, 'data directory')).toMatchObject({
      status: 'ok',
    })
    fs.chmodSync(dataDir, 0o755)
    expect(await doctor({ ...t.env, DATA_DIR: dataDir }, 'data directory')).toMatchObject({
      status: 'warn',
      message: expect.stringContaining('chmod 700'),
    })
    const file = path.join(dataDir, 'plain-file')
    fs.writeFileSync(file, '')
    expect(await doctor({ ...t.env, DATA_DIR: file }, 'data directory')).toMatchObject({
      status: 'fail',
      message: expect.stringContaining('is not a directory'),
    })
    expect(
      await doctor({ ...t.env, DATA_DIR: path.join(dataDir, 'absent') }, 'data directory'),
    ).toMatchObject({ status: 'warn' })
  })

  it('secrets: from the environment or a 0600 file is ok; a readable file fails, a broken one fails, a missing one warns', async () => {
    expect(await doctor(t.env, 'secrets')).toMatchObject({
      status: 'ok',
      message: expect.stringContaining('from the environment'),
    })
    const dataDir = makeTempDir()
    const fileEnv = {
      ...t.env,
      DATA_DIR: dataDir,
      JWT_SECRET: undefined,
      ENCRYPTION_KEY: undefined,
    }
    expect(await doctor(fileEnv, 'secrets')).toMatchObject({
      status: 'warn',
      message: expect.stringContaining('does not exist yet'),
    })
    // The doctor changes nothing: no secrets file was generated.
    expect(fs.existsSync(path.join(dataDir, 'secrets.json'))).toBe(false)
    const file = path.join(dataDir, 'secrets.json')
    fs.writeFileSync(
      file,
      JSON.stringify({ jwt_secret: 'j'.repeat(48), encryption_key: 'ab'.repeat(32) }),
      { mode: 0o600 },
    )
    expect(await doctor(fileEnv, 'secrets')).toMatchObject({
      status: 'ok',
      message: expect.stringContaining('mode 0600'),
    })
    fs.chmodSync(file, 0o644)
    expect(await doctor(fileEnv, 'secrets')).toMatchObject({
      status: 'fail',
      message: expect.stringContaining('chmod 600'),
    })
    fs.writeFileSync(file, '{"jwt_secret":"short"}', { mode: 0o600 })
    fs.chmodSync(file, 0o600)
    expect(await doctor(fileEnv, 'secrets')).toMatchObject({
      status: 'fail',
      message: expect.stringContaining('not a valid secrets file'),
    })
  })

  it('database: the configured one answers; an unreachable server fails with what to check', async () => {
    expect(await doctor(t.env, 'database')).toMatchObject({
      status: 'ok',
      message: expect.stringContaining('answers'),
    })
    const unreachable = await doctor(
      { ...t.env, DATABASE_URL: `postgres://switchboard:pw@127.0.0.1:${closedPort}/switchboard` },
      'database',
    )
    expect(unreachable).toMatchObject({
      status: 'fail',
      message: expect.stringContaining('is not reachable'),
    })
    expect(unreachable.message).not.toContain(':pw@')
  })

  it('migrations: all applied is ok; pending ones warn; one from a newer version fails', async () => {
    expect(await doctor(t.env, 'migrations')).toMatchObject({
      status: 'ok',
      message: expect.stringMatching(/^all \d+ applied$/),
    })
    const [last] = (
      await sql<{
        name: string
      }>`select name from kysely_migration order by name desc limit 1`.execute(t.deps.db)
    ).rows
    await sql`delete from kysely_migration where name = ${last!.name}`.execute(t.deps.db)
    expect(await doctor(t.env, 'migrations')).toMatchObject({
      status: 'warn',
      message: `1 pending (${last!.name}); the service applies them at start, or run switchboard migrate`,
    })
    await sql`insert into kysely_migration (name, timestamp) values (${last!.name}, ${new Date().toISOString()})`.execute(
      t.deps.db,
    )
    await sql`insert into kysely_migration (name, timestamp) values ('9999_from_the_future', ${new Date().toISOString()})`.execute(
      t.deps.db,
    )
    try {
      expect(await doctor(t.env, 'migrations')).toMatchObject({
        status: 'fail',
        message: expect.stringContaining('migrated by a newer version (9999_from_the_future)'),
      })
    } finally {
      await sql`delete from kysely_migration where name = '9999_from_the_future'`.execute(t.deps.db)
    }
  })

  it('triggers: none beyond the migrations is ok; a planted one fails, named', async () => {
    expect(await doctor(t.env, 'triggers')).toMatchObject({ status: 'ok' })
    // Makes whoever signs in next an administrator, without an audit event.
    if (testEngine() === 'postgres') {
      await sql`create function promote() returns trigger language plpgsql as
        $$ begin new.is_admin := true; return new; end $$`.execute(t.deps.db)
      await sql`create trigger promote_on_sign_in before update on users
        for each row execute function promote()`.execute(t.deps.db)
    } else {
      await sql`create trigger promote_on_sign_in after update on users
        begin update users set is_admin = 1 where id = new.id; end`.execute(t.deps.db)
    }
    try {
      expect(await doctor(t.env, 'triggers')).toMatchObject({
        status: 'fail',
        message: expect.stringMatching(/^trigger promote_on_sign_in — no migration creates it;/),
      })
    } finally {
      await sql`drop trigger promote_on_sign_in${sql.raw(testEngine() === 'postgres' ? ' on users' : '')}`.execute(
        t.deps.db,
      )
      if (testEngine() === 'postgres') await sql`drop function promote()`.execute(t.deps.db)
    }
  })

  it('redis: unset is fine for one instance (a warning on PostgreSQL, where several may run); a closed port fails', async () => {
    const unset = await doctor({ ...t.env, REDIS_URL: undefined }, 'redis')
    expect(unset.status).toBe(testEngine() === 'postgres' ? 'warn' : 'ok')
    const closed = await doctor(
      { ...t.env, REDIS_URL: `redis://:hunter2@127.0.0.1:${closedPort}` },
      'redis',
    )
    expect(closed).toMatchObject({
      status: 'fail',
      message: expect.stringContaining(`127.0.0.1:${closedPort} is not reachable`),
    })
    expect(closed.message).not.toContain('hunter2')
  })

  it('smtp: unconfigured is ok; a reachable server is verified without sending; a closed port fails', async () => {
    expect(await doctor(t.env, 'smtp')).toMatchObject({
      status: 'ok',
      message: expect.stringContaining('not configured'),
    })
    const { token } = await createSignedInUser(t, { isAdmin: true })
    const configure = (port: number) =>
      t.app.inject({
        method: 'PUT',
        url: '/api/admin/settings/smtp',
        headers: bearer(token),
        payload: {
          current_password: DEFAULT_PASSWORD,
          enabled: true,
          host: smtp.host,
          port,
          username: SMTP_USERNAME,
          password: SMTP_PASSWORD,
          plaintext_auth_on_loopback: true,
          from_address: 'no-reply@example.com',
        },
      })
    expect((await configure(smtp.port)).statusCode).toBe(200)
    const attempts = smtp.authAttempts
    const good = await doctor(t.env, 'smtp')
    expect(good).toMatchObject({
      status: 'ok',
      message: `${smtp.host}:${smtp.port} accepted the connection (STARTTLS if offered, authenticated); nothing was sent`,
    })
    expect(smtp.authAttempts).toBe(attempts + 1)
    expect(smtp.received).toEqual([])
    expect((await configure(closedPort)).statusCode).toBe(200)
    const bad = await doctor(t.env, 'smtp')
    expect(bad.status).toBe('fail')
    expect(bad.message).toContain('ECONNREFUSED')
    expect(bad.message).not.toContain(SMTP_PASSWORD)
    expect((await configure(smtp.port)).statusCode).toBe(200)
  })

  it('public url: https is ok (Secure cookies); http to another host warns; unset warns; http on this machine is ok', async () => {
    expect(
      await doctor(
        { ...t.env, PUBLIC_URL: 'https://sb.example.com', TRUST_PROXY: '1' },
        'public url',
      ),
    ).toMatchObject({
      status: 'ok',
      message: 'https://sb.example.com: cookies are sent with Secure',
    })
    expect(
      await doctor({ ...t.env, PUBLIC_URL: 'http://sb.example.com' }, 'public url'),
    ).toMatchObject({
      status: 'warn',
      message: expect.stringContaining('without Secure'),
    })
    expect(await doctor({ ...t.env, PUBLIC_URL: undefined }, 'public url')).toMatchObject({
      status: 'warn',
      message: expect.stringContaining('not set'),
    })
    expect(
      await doctor({ ...t.env, PUBLIC_URL: 'http://localhost:8080' }, 'public url'),
    ).toMatchObject({ status: 'ok' })
  })

  it('trust proxy: a hop count or address is ok; true is a configuration failure (refused at start); https behind no trusted proxy warns; no proxy on http is ok', async () => {
    expect(
      await doctor(
        { ...t.env, PUBLIC_URL: 'https://sb.example.com', TRUST_PROXY: '1' },
        'trust proxy',
      ),
    ).toMatchObject({ status: 'ok' })
    expect(
      await doctor(
        { ...t.env, PUBLIC_URL: 'https://sb.example.com', TRUST_PROXY: '10.0.0.5' },
        'trust proxy',
      ),
    ).toMatchObject({ status: 'ok' })
    expect(
      await doctor(
        { ...t.env, PUBLIC_URL: 'https://sb.example.com', TRUST_PROXY: 'true' },
        'configuration',
      ),
    ).toMatchObject({
      status: 'fail',
      message: expect.stringContaining('TRUST_PROXY'),
    })
    expect(
      await doctor(
        { ...t.env, PUBLIC_URL: 'https://sb.example.com', TRUST_PROXY: 'false' },
        'trust proxy',
      ),
    ).toMatchObject({
      status: 'warn',
      message: expect.stringContaining('set TRUST_PROXY'),
    })
    expect(
      await doctor(
        { ...t.env, PUBLIC_URL: 'http://localhost:8080', TRUST_PROXY: 'false' },
        'trust proxy',
      ),
    ).toMatchObject({ status: 'ok' })
  })

  it('go host: each GO_HOSTS name that resolves is ok, one that does not warns with what to add', async () => {
    const results = await runDoctor(
      { ...t.env, GO_HOSTS: 'localhost,go.invalid' },
      { timeoutMs: 3000 },
    )
    const goHosts = results.filter((result) => result.check === 'go host')
    expect(goHosts).toEqual([
      expect.objectContaining({ status: 'ok', message: expect.stringContaining('localhost') }),
      expect.objectContaining({
        status: 'warn',
        message: expect.stringContaining('go.invalid does not resolve here: add a DNS record'),
      }),
    ])
    const none = await runDoctor(t.env, { timeoutMs: 3000 })
    expect(none.some((result) => result.check === 'go host')).toBe(false)
  })

  it('prints one line per check and exits 1 on a fail, 0 otherwise', async () => {
    const good = await cli({ ...t.env, PUBLIC_URL: 'https://sb.example.com', TRUST_PROXY: '1' })
    const lines = good.stdout.trimEnd().split('\n')
    for (const line of lines) expect(line).toMatch(/^(ok {2}|warn|fail) [a-z ]+: \S/)
    expect(lines.map((line) => line.slice(5, line.indexOf(':')))).toEqual(
      expect.arrayContaining([
        'configuration',
        'data directory',
        'secrets',
        'database',
        'migrations',
        'redis',
        'smtp',
        'public url',
        'trust proxy',
      ]),
    )
    expect(good.stdout).not.toContain('fail ')
    expect(good.code).toBe(0)
    const bad = await cli({ ...t.env, REDIS_URL: `redis://127.0.0.1:${closedPort}` })
    expect(bad.stdout).toMatch(/^fail redis: /m)
    expect(bad.code).toBe(1)
  })
})
