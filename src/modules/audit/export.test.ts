import { describe, expect, it } from 'vitest'
import { useTestApp } from '../../../test/helpers/app.js'
import { turnsDuring } from '../../../test/helpers/event-loop.js'
import { bearer, createSignedInUser } from '../../../test/helpers/factories.js'
import { csvCell, EXPORT_BATCH } from './export.js'
import { insertAuditEvent } from './repo.js'

const t = useTestApp({ env: { RATE_LIMIT_GENERAL: '0' } })
const exportLog = (token: string, query: string) =>
  t.app.inject({
    method: 'GET',
    url: `/api/admin/audit-log/export${query}`,
    headers: bearer(token),
  })

/** A minimal RFC 4180 reader: quoted cells, doubled quotes, CRLF records. */
function parseCsv(text: string): string[][] {
  const records: string[][] = []
  let cell = ''
  let record: string[] = []
  let quoted = false
  for (let i = 0; i < text.length; i++) {
    const char = text[i]!
    if (quoted && char === '"' && text[i + 1] === '"') {
      cell += '"'
      i++
    } else if (quoted && char === '"') quoted = false
    else if (quoted) cell += char
    else if (char === '"') quoted = true
    else if (char === ',') {
      record.push(cell)
      cell = ''
    } else if (char === '\r' && text[i + 1] === '\n') {
      record.push(cell)
      records.push(record)
      record = []
      cell = ''
      i++
    } else cell += char
  }
  return records
}

describe('csvCell', () => {
  it('quotes every cell, doubles quotes, and neutralises formula starts', () => {
    expect(csvCell('plain')).toBe('"plain"')
    expect(csvCell('say "hi", twice')).toBe('"say ""hi"", twice"')
    expect(csvCell(null)).toBe('')
    for (const start of ['=', '+', '-', '@', '\t', '\r'])
      expect(csvCell(`${start}SUM(A1)`)).toBe(`"'${start}SUM(A1)"`)
    expect(csvCell('line\nbreak')).toBe('"line\nbreak"')
  })
})

describe('GET /api/admin/audit-log/export', () => {
  it('answers the filtered view as CSV, newest first, neutralising formulas, as an attachment, and audits the export', async () => {
    const admin = await createSignedInUser(t, { isAdmin: true })
    t.clock.advance(60)
    const since = t.clock.now().toISOString()
    const base = {
      actorId: admin.user.id,
      actorEmail: admin.email,
      targetType: 'user',
      targetId: null,
      ip: '127.0.0.1',
      userAgent: null,
      subjectUserId: null,
    }
    await insertAuditEvent(t.deps.db, {
      ...base,
      at: since,
      action: 'test.export',
      metadata: { name: '=HYPERLINK("http://evil")', n: 1 },
    })
    t.clock.advance(1)
    await insertAuditEvent(t.deps.db, {
      ...base,
      at: t.clock.now().toISOString(),
      action: 'test.export',
      metadata: { n: 2 },
      targetId: '@target',
    })
    await insertAuditEvent(t.deps.db, {
      ...base,
      at: t.clock.now().toISOString(),
      action: 'test.other',
      metadata: {},
    })

    const response = await exportLog(
      admin.token,
      `?format=csv&action=test.export&since=${encodeURIComponent(since)}`,
    )
    expect(response.statusCode).toBe(200)
    expect(response.headers['content-type']).toBe('text/csv; charset=utf-8')
    expect(response.headers['content-disposition']).toMatch(
      /^attachment; filename="switchboard-audit-[0-9TZ-]+\.csv"$/,
    )
    const [header, ...rows] = parseCsv(response.body)
    expect(header).toEqual([
      'id',
      'at',
      'actor_id',
      'actor_email',
      'action',
      'target_type',
      'target_id',
      'ip',
      'metadata',
    ])
    expect(rows.map((row) => JSON.parse(row[8]!.replace(/^'/, '')).n)).toEqual([2, 1])
    expect(rows[0]![6]).toBe("'@target")
    // The metadata cell starts with `{`: a JSON object is never a formula.
    expect(rows[1]![8]).toBe('{"name":"=HYPERLINK(\\"http://evil\\")","n":1}')

    const log = await t.app.inject({
      method: 'GET',
      url: '/api/admin/audit-log?action=audit.export',
      headers: bearer(admin.token),
    })
    expect(log.json().items[0]).toMatchObject({
      actor_id: admin.user.id,
      action: 'audit.export',
      metadata: { format: 'csv', filters: { action: 'test.export', since } },
    })
  })

  it('answers JSON Lines of the list items, filtered by actor and a time window (until exclusive)', async () => {
    const admin = await createSignedInUser(t, { isAdmin: true })
    const other = await createSignedInUser(t)
    t.clock.advance(60)
    const start = t.clock.now().toISOString()
    const base = {
      actorId: other.user.id,
      actorEmail: other.email,
      targetType: null,
      targetId: null,
      ip: null,
      userAgent: null,
      subjectUserId: null,
      action: 'test.window',
    }
    await insertAuditEvent(t.deps.db, { ...base, at: start, metadata: { n: 1 } })
    t.clock.advance(10)
    const end = t.clock.now().toISOString()
    await insertAuditEvent(t.deps.db, { ...base, at: end, metadata: { n: 2 } })

    const filters = `actor_id=${other.user.id}&since=${encodeURIComponent(start)}&until=${encodeURIComponent(end)}`
    const response = await exportLog(admin.token, `?format=jsonl&${filters}`)
    expect(response.statusCode).toBe(200)
    expect(response.headers['content-type']).toBe('application/jsonl; charset=utf-8')
    const lines = response.body.split('\n')
    expect(lines.pop()).toBe('')
    expect(lines.map((line) => JSON.parse(line))).toEqual([
      {
        id: expect.any(String),
        at: start,
        actor_id: other.user.id,
        actor_email: other.email,
        action: 'test.window',
        target_type: null,
        target_id: null,
        ip: null,
        metadata: { n: 1 },
      },
    ])
    // The list takes the same window.
    const list = await t.app.inject({
      method: 'GET',
      url: `/api/admin/audit-log?${filters}`,
      headers: bearer(admin.token),
    })
    expect(list.json().items.map((e: { metadata: unknown }) => e.metadata)).toEqual([{ n: 1 }])
  })

  it('streams more than one batch, every event once, in order', async () => {
    const admin = await createSignedInUser(t, { isAdmin: true })
    const count = EXPORT_BATCH * 2 + 7
    const at = new Date(Date.UTC(2001, 0, 1)).getTime()
    await t.deps.db.transaction().execute(async (tx) => {
      for (let i = 0; i < count; i++) {
        // Pairs share a time, so the id breaks the tie across batch boundaries.
        const when = new Date(at + Math.floor(i / 2) * 1000).toISOString()
        await insertAuditEvent(tx, {
          at: when,
          actorId: null,
          actorEmail: null,
          action: 'test.bulk',
          targetType: null,
          targetId: null,
          ip: null,
          userAgent: null,
          subjectUserId: null,
          metadata: { i },
        })
      }
    })
    let response: Awaited<ReturnType<typeof exportLog>> | undefined
    // Other requests get their turn between batches (on SQLite a batch is read without one).
    const turns = await turnsDuring(
      async () => (response = await exportLog(admin.token, '?format=jsonl&action=test.bulk')),
    )
    expect(turns).toBeGreaterThanOrEqual(2)
    expect(
      await turnsDuring(() => exportLog(admin.token, '?format=verifiable')),
    ).toBeGreaterThanOrEqual(2)
    const events = response!.body
      .trim()
      .split('\n')
      .map((line) => JSON.parse(line) as { id: string; at: string; metadata: { i: number } })
    expect(events).toHaveLength(count)
    expect(new Set(events.map((e) => e.id)).size).toBe(count)
    const keys = events.map((e) => `${e.at}|${e.id}`)
    expect(keys).toEqual([...keys].sort().reverse())
  })

  it('refuses non-administrators, unknown formats and malformed bounds', async () => {
    const admin = await createSignedInUser(t, { isAdmin: true })
    const user = await createSignedInUser(t)
    expect((await exportLog(user.token, '?format=csv')).statusCode).toBe(403)
    expect(
      (await t.app.inject({ method: 'GET', url: '/api/admin/audit-log/export?format=csv' }))
        .statusCode,
    ).toBe(401)
    for (const query of [
      '',
      '?format=xlsx',
      '?format=csv&until=tomorrow',
      '?format=csv&limit=5',
      '?format=csv&cursor=x',
    ]) {
      const response = await exportLog(admin.token, query)
      expect(response.statusCode, query).toBe(400)
      expect(response.json().reason).toBe('VALIDATION_FAILED')
    }
  })

  it('an until before 1970 selects nothing; a since before 1970 filters nothing', async () => {
    const admin = await createSignedInUser(t, { isAdmin: true })
    const none = await exportLog(
      admin.token,
      `?format=jsonl&until=${encodeURIComponent('1969-12-31T00:00:00Z')}`,
    )
    expect(none.body).toBe('')
    const all = await t.app.inject({
      method: 'GET',
      url: `/api/admin/audit-log?since=${encodeURIComponent('1969-12-31T00:00:00Z')}&actor_id=${admin.user.id}`,
      headers: bearer(admin.token),
    })
    expect(all.json().items.length).toBeGreaterThan(0)
  })
})
