/**
 * The deployment files, checked without running them: compose.yaml parsed as YAML and
 * held to the structure the README describes (Debian's podman-compose has no `config` command to
 * do it), the Containerfile's promises (base image argument, unprivileged user, volume, port,
 * health check), the systemd unit through `systemd-analyze verify` where systemd is installed and
 * by its structure everywhere, and the licence.
 */
import { spawnSync } from 'node:child_process'
import fs from 'node:fs'
import os from 'node:os'
import path from 'node:path'
import { describe, expect, it } from 'vitest'
import { parse } from 'yaml'

const ROOT = path.resolve(import.meta.dirname, '..')
const read = (file: string) => fs.readFileSync(path.join(ROOT, file), 'utf8')

interface ComposeService {
  image?: string
  build?: { context: string; dockerfile: string }
  environment?: Record<string, string>
  depends_on?: Record<string, { condition: string }>
  volumes?: string[]
  ports?: string[]
  healthcheck?: { test: string[] }
  restart?: string
}

describe('compose.yaml', () => {
  const compose = parse(read('compose.yaml')) as {
    services: Record<string, ComposeService>
    volumes: Record<string, unknown>
  }

  it('runs the service built from the Containerfile, with PostgreSQL and Redis it waits for', () => {
    expect(Object.keys(compose.services).sort()).toEqual(['postgres', 'redis', 'switchboard'])
    const service = compose.services.switchboard!
    expect(service.build).toEqual({ context: '.', dockerfile: 'Containerfile' })
    expect(service.depends_on).toEqual({
      postgres: { condition: 'service_healthy' },
      redis: { condition: 'service_healthy' },
    })
    for (const dependency of ['postgres', 'redis'])
      expect(compose.services[dependency]!.healthcheck?.test.length).toBeGreaterThan(1)
    expect(service.restart).toBe('unless-stopped')
  })

  it('configures the service for several instances: PostgreSQL, Redis, keys from the environment, a proxy in front', () => {
    const env = compose.services.switchboard!.environment!
    expect(new URL(env.DATABASE_URL!.replace(/\$\{[^}]+\}/g, 'x')).host).toBe('postgres:5432')
    expect(env.REDIS_URL).toBe('redis://redis:6379')
    expect(env.JWT_SECRET).toMatch(/^\$\{JWT_SECRET:\?/)
    expect(env.ENCRYPTION_KEY).toMatch(/^\$\{ENCRYPTION_KEY:\?/)
    expect(env.PUBLIC_URL).toMatch(/^\$\{PUBLIC_URL:\?/)
    expect(env.TRUST_PROXY).toBe('1')
    // Only the reverse proxy on the host reaches it.
    expect(compose.services.switchboard!.ports).toEqual(['127.0.0.1:8080:8080'])
  })

  it('keeps data in named volumes declared at the top level', () => {
    const mounts = Object.values(compose.services).flatMap((service) => service.volumes ?? [])
    expect(mounts).toEqual(['switchboard-data:/data', 'postgres-data:/var/lib/postgresql/data'])
    for (const mount of mounts) expect(compose.volumes).toHaveProperty(mount.split(':')[0]!)
  })
})

describe('Containerfile', () => {
  const text = read('Containerfile')
  const instructions = text
    .replace(/\\\n/g, ' ')
    .split('\n')
    .filter((line) => line.trim() !== '' && !line.startsWith('#'))

  it('builds in one stage and runs from a second, both on the base image argument (the official Node 24 slim image by default)', () => {
    expect(instructions[0]).toBe('ARG BASE_IMAGE=docker.io/library/node:24-slim')
    expect(instructions.filter((line) => line.startsWith('FROM '))).toEqual([
      'FROM ${BASE_IMAGE} AS build',
      'FROM ${BASE_IMAGE}',
    ])
    const runtime = instructions.slice(instructions.indexOf('FROM ${BASE_IMAGE}'))
    expect(runtime.filter((line) => line.startsWith('COPY '))).toEqual([
      'COPY --from=build /src/package.json ./',
      'COPY --from=build /src/node_modules ./node_modules',
      'COPY --from=build /src/dist ./dist',
    ])
    expect(text).toContain('npm prune --omit=dev')
  })

  it('runs unprivileged with /data as its volume, port 8080 and a health check on readiness', () => {
    expect(instructions).toContain('USER switchboard')
    expect(instructions).toContain('VOLUME /data')
    expect(instructions).toContain('EXPOSE 8080')
    expect(instructions.find((line) => line.startsWith('HEALTHCHECK'))).toContain(
      '/api/health/ready',
    )
    expect(instructions.at(-1)).toBe('CMD ["node", "dist/server.js"]')
  })

  it('leaves local state and dependencies out of the build context', () => {
    const ignored = read('.containerignore')
      .split('\n')
      .filter((line) => line !== '' && !line.startsWith('#'))
    expect(ignored).toEqual(
      expect.arrayContaining(['.git', 'node_modules', 'dist', 'data', '.env']),
    )
  })
})

describe('deploy/switchboard.service', () => {
  const unit = read('deploy/switchboard.service')

  it('runs dist/server.js as its own user with a private state directory, restarting on failure', () => {
    const settings = unit.split('\n').filter((line) => /^[A-Za-z]+=/.test(line))
    expect(settings).toEqual(
      expect.arrayContaining([
        'User=switchboard',
        'ExecStart=/usr/bin/node /opt/switchboard/dist/server.js',
        'Environment=DATA_DIR=/var/lib/switchboard',
        'StateDirectory=switchboard',
        'StateDirectoryMode=0700',
        'KillSignal=SIGTERM',
        'Restart=on-failure',
        'WantedBy=multi-user.target',
      ]),
    )
    expect(unit.match(/^\[(\w+)\]$/gm)).toEqual(['[Unit]', '[Service]', '[Install]'])
  })

  it('passes systemd-analyze verify where systemd is installed', () => {
    const available = spawnSync('systemd-analyze', ['--version'], { stdio: 'ignore' }).status === 0
    if (!available) {
      expect(fs.existsSync('/run/systemd/system')).toBe(false)
      return
    }
    // verify also checks that ExecStart's program exists: a copy pointing at this machine's node.
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'switchboard-unit-'))
    const copy = path.join(dir, 'switchboard.service')
    fs.writeFileSync(copy, unit.replace('ExecStart=/usr/bin/node', `ExecStart=${process.execPath}`))
    const result = spawnSync('systemd-analyze', ['verify', copy], { encoding: 'utf8' })
    fs.rmSync(dir, { recursive: true, force: true })
    expect(
      result.stderr.split('\n').filter((line) => line.includes('switchboard.service')),
    ).toEqual([])
    expect(result.status).toBe(0)
  })
})

describe('licence', () => {
  it('is the Apache License 2.0, in LICENSE and package.json', () => {
    expect(read('LICENSE')).toMatch(/^\s*Apache License\s+Version 2\.0, January 2004/)
    expect((JSON.parse(read('package.json')) as { license: string }).license).toBe('Apache-2.0')
  })
})
