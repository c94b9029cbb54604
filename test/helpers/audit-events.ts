/**
 * A random audit log for the tamper tests: events with every optional column sometimes empty, the
 * same on every run (a fixed seed).
 */
import type { AuditEvent } from '../../src/modules/audit/repo.js'
import { seededRandom } from './seeded-random.js'

/** A small seeded generator, so the log is random but the same on every run. */
function generator(seed: number) {
  const next = seededRandom(seed)
  const pick = <T>(items: readonly T[]) => items[Math.floor(next() * items.length)]!
  const word = () =>
    Array.from({ length: 3 + Math.floor(next() * 10) }, () =>
      pick('abcdefghijklmnopqrstuvwxyzäéß0123456789 -_'.split('')),
    ).join('')
  return { next, pick, word }
}

export function randomEvents(count: number): AuditEvent[] {
  const g = generator(30)
  const start = Date.UTC(2024, 0, 1)
  return Array.from({ length: count }, (_, i) => {
    const actor = g.next() < 0.1 ? null : `user-${Math.floor(g.next() * 300)}`
    return {
      at: new Date(start + i * 1000 + Math.floor(g.next() * 999)).toISOString(),
      actorId: actor,
      actorEmail: actor === null ? null : `${actor}@example.com`,
      action: g.pick([
        'auth.login',
        'org.create',
        'link.update',
        'admin.user_update',
        'settings.update',
      ]),
      targetType: g.pick(['user', 'organization', 'link', null]),
      targetId: g.next() < 0.2 ? null : g.word(),
      ip: g.next() < 0.3 ? null : `198.51.100.${Math.floor(g.next() * 255)}`,
      userAgent: g.next() < 0.5 ? null : `Browser/${g.word()}`,
      subjectUserId: actor,
      metadata:
        g.next() < 0.2
          ? {}
          : {
              n: Math.floor(g.next() * 1e6),
              name: g.word(),
              nested: { ok: g.next() < 0.5, tags: [g.word(), g.word()] },
            },
    }
  })
}
