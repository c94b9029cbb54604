/**
 * The container image (Containerfile), built and run with podman as a self-hoster would:
 * the service answers on the published port, setup completes over HTTP (with the setup code from
 * the container's log, as the request does not come from the container's loopback), the process
 * runs as an unprivileged user, the HEALTHCHECK passes, SIGTERM stops it cleanly, and a new
 * container on the same volume finds the data.
 *
 * No registry image can be pulled on the CI machine, so the base image is this test's own
 * (test/container/build-test-base.sh: debootstrap + the pinned Node build), passed as the build
 * argument the Containerfile offers. podman runs with runc (crun refuses this machine's cgroup
 * layout) and with nofile/nproc limits below the machine's, which a container may not raise. The
 * containers use user-mode networking (slirp4netns), which publishes the port as the default
 * bridge does but adds no interface to the host: the bridge adds and removes host interfaces at
 * each start and stop, and Chromium, running the console's tests at the same time, aborts its
 * requests on such a change (net::ERR_NETWORK_CHANGED). Runs where podman is installed
 * (vitest.config.ts; mandatory with CI=true); .ci/run installs it.
 */
import { execFile } from 'node:child_process'
import { randomBytes } from 'node:crypto'
import net from 'node:net'
import path from 'node:path'
import { promisify } from 'node:util'
import { afterAll, describe, expect, it } from 'vitest'

const run = promisify(execFile)
const ROOT = path.resolve(import.meta.dirname, '..')
const IMAGE = 'localhost/switchboard:ci-test'
const RUNTIME = ['--runtime', 'runc']
const LIMITS = ['--ulimit', 'nofile=10000:10000', '--ulimit', 'nproc=10000:10000']
const NETWORK = ['--network', 'slirp4netns']
const suffix = randomBytes(4).toString('hex')
const VOLUME = `switchboard-test-data-${suffix}`

const containers: string[] = []

async function podman(args: string[], timeoutMs = 60_000): Promise<string> {
  const { stdout } = await run('podman', args, { timeout: timeoutMs, maxBuffer: 64 * 1024 * 1024 })
  return stdout
}

afterAll(async () => {
  for (const name of containers)
    await podman(['rm', '--force', '--time', '2', name]).catch(() => undefined)
  await podman(['volume', 'rm', '--force', VOLUME]).catch(() => undefined)
}, 60_000)

function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = net.createServer()
    server.once('error', reject)
    server.listen(0, '127.0.0.1', () => {
      const { port } = server.address() as net.AddressInfo
      server.close(() => resolve(port))
    })
  })
}

async function waitUntilReady(baseUrl: string, name: string): Promise<void> {
  const deadline = Date.now() + 90_000
  while (Date.now() < deadline) {
    const answered = await fetch(`${baseUrl}/api/health/ready`).then(
      (response) => response.status === 200,
      () => false,
    )
    if (answered) return
    await new Promise((resolve) => setTimeout(resolve, 250))
  }
  throw new Error(
    `container ${name} did not become ready:\n${await podman(['logs', name]).catch(() => '')}`,
  )
}

async function startContainer(port: number): Promise<{ name: string; baseUrl: string }> {
  const name = `switchboard-test-${suffix}-${containers.length}`
  containers.push(name)
  await podman([
    'run',
    '--detach',
    '--name',
    name,
    ...RUNTIME,
    ...LIMITS,
    ...NETWORK,
    '--publish',
    `127.0.0.1:${port}:8080`,
    '--volume',
    `${VOLUME}:/data`,
    IMAGE,
  ])
  const baseUrl = `http://127.0.0.1:${port}`
  await waitUntilReady(baseUrl, name)
  return { name, baseUrl }
}

/** Seconds since `started`, for the timing lines CI prints. */
const since = (started: number) => ((performance.now() - started) / 1000).toFixed(1)

describe('the container image', () => {
  it('builds, serves, completes setup, runs unprivileged, stops on SIGTERM and keeps its data on the volume', async () => {
    const started = performance.now()
    const base = (
      await run(path.join(ROOT, 'test/container/build-test-base.sh'), [], {
        timeout: 600_000,
        maxBuffer: 16 * 1024 * 1024,
      })
    ).stdout.trim()
    const baseSeconds = since(started)

    const building = performance.now()
    // What this build supersedes: the previous image and its build stage (leaves only: `podman rmi`
    // refuses an image other images build on, such as the cached dependency layer).
    const previous = (
      await podman(['images', '--quiet', '--no-trunc', '--filter', 'dangling=true'])
    )
      .split('\n')
      .filter(Boolean)
    previous.push(
      (await podman(['image', 'inspect', '--format', '{{.Id}}', IMAGE]).catch(() => '')).trim(),
    )
    // --format docker: the OCI image format has no HEALTHCHECK, and podman would drop it.
    await podman(
      [
        'build',
        '--format',
        'docker',
        ...RUNTIME,
        ...LIMITS,
        '--network',
        'host',
        '--build-arg',
        `BASE_IMAGE=${base}`,
        '--file',
        'Containerfile',
        '--tag',
        IMAGE,
        ROOT,
      ],
      900_000,
    )
    const current = (await podman(['image', 'inspect', '--format', '{{.Id}}', IMAGE])).trim()
    for (const id of previous)
      if (id !== '' && id !== current) await podman(['rmi', id]).catch(() => undefined)
    const buildSeconds = since(building)

    const [image] = JSON.parse(await podman(['image', 'inspect', IMAGE])) as {
      Config: {
        User: string
        ExposedPorts: Record<string, unknown>
        Volumes: Record<string, unknown>
        Cmd: string[]
        Env: string[]
      }
      Healthcheck?: { Test: string[] }
    }[]
    const config = image!.Config
    expect(config.User).toBe('switchboard')
    expect(Object.keys(config.ExposedPorts)).toEqual(['8080/tcp'])
    expect(Object.keys(config.Volumes)).toEqual(['/data'])
    expect(image!.Healthcheck?.Test.join(' ')).toContain('/api/health/ready')
    expect(config.Cmd).toEqual(['node', 'dist/server.js'])

    const running = performance.now()
    await podman(['volume', 'create', VOLUME])
    const port = await freePort()
    const first = await startContainer(port)

    // The request comes through the published port, not the container's loopback: setup needs the
    // code, which an operator of a container asks the CLI for (README); the JSON log never holds
    // it.
    const setupCode = (await podman(['exec', first.name, 'switchboard', 'setup-code'])).trim()
    expect(setupCode).toMatch(/^[A-Z0-9]{5}(-[A-Z0-9]{5}){3}$/)
    expect(await podman(['logs', first.name])).not.toContain(setupCode)
    const setup = await fetch(`${first.baseUrl}/api/auth/setup`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({
        email: 'admin@example.com',
        name: 'Admin',
        password: 'container test passphrase',
        setup_code: setupCode,
      }),
    })
    expect(setup.status).toBe(201)
    const { token } = (await setup.json()) as { token: string }
    const link = await fetch(`${first.baseUrl}/api/links`, {
      method: 'POST',
      headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
      body: JSON.stringify({ url: 'https://example.com/kept', title: 'Kept across containers' }),
    })
    expect(link.status).toBe(201)
    const { id } = (await link.json()) as { id: string }

    // PID 1 is the service (node, no shell in between), and it runs as the unprivileged user.
    const status = await podman(['exec', first.name, 'cat', '/proc/1/status'])
    expect(/^Uid:\s+(\d+)/m.exec(status)?.[1]).toBe('10001')
    const command = (await podman(['exec', first.name, 'cat', '/proc/1/cmdline'])).split('\0')
    expect(command[0]).toMatch(/\/node$/)
    expect(command).toContain('/app/dist/server.js')
    await podman(['healthcheck', 'run', first.name])
    const backup = await podman(['exec', first.name, 'switchboard', 'backup', '/data/backup.db'])
    expect(backup).toContain('backup written to /data/backup.db')

    await podman(['stop', '--time', '15', first.name])
    expect((await podman(['inspect', '--format', '{{.State.ExitCode}}', first.name])).trim()).toBe(
      '0',
    )
    expect(await podman(['logs', first.name])).toContain('"signal":"SIGTERM","msg":"shutting down"')
    await podman(['rm', first.name])

    const second = await startContainer(port)
    const links = await fetch(`${second.baseUrl}/api/links`, {
      headers: { authorization: `Bearer ${token}` },
    })
    expect(links.status).toBe(200)
    expect(
      ((await links.json()) as { items: { id: string }[] }).items.map((item) => item.id),
    ).toEqual([id])
    const user = await fetch(`${second.baseUrl}/api/auth/setup`)
    expect(((await user.json()) as { initialized: boolean }).initialized).toBe(true)
    await podman(['stop', '--time', '15', second.name])

    console.log(
      `ci: container test — base image ${baseSeconds} s, build ${buildSeconds} s, run ${since(running)} s, total ${since(started)} s`,
    )
  }, 1_200_000)
})
