/**
 * The framework's own ceiling: a bare Fastify route returning a constant object, no hooks, no logs.
 * With BARE_PG_URL, BARE_PG_TEXT and BARE_PG_VALUES (JSON) also GET /pg: the same route doing one
 * indexed read through a plain `pg` Pool (10 connections) — the statement GET /api/users/me runs,
 * as a named prepared statement with its values — and returning the row: the limit a standard
 * driver sets on a PostgreSQL read. With BARE_PG_GO_TEXT and BARE_PG_GO_VALUES also GET /pg-go: the
 * same with the go redirect's statement (the session joined to the slug's links), so that the
 * redirect can be compared with the read it runs as well as with /me's.
 */
import Fastify from 'fastify'

const app = Fastify({ logger: false })
const body = {
  id: '01a1fe0e-ddce-77b2-a4df-d9b078bee51d',
  email: 'bench@example.com',
  name: 'Bench User',
  user_key: 'nkTWxdAd',
  is_admin: false,
  language: 'en',
  theme: 'auto',
  ai_suggestions_enabled: true,
  email_pending: null,
  oidc_provider: null,
  oidc_sub: null,
  has_password: true,
}
app.get('/', async () => body)
if (process.env.BARE_PG_URL !== undefined) {
  const { default: pg } = await import('pg')
  const pool = new pg.Pool({ connectionString: process.env.BARE_PG_URL, max: 10 })
  const readRoute = (url, name, text, values) => {
    const query = { name, text, values: JSON.parse(values) }
    app.get(url, async (_request, reply) => {
      const { rows } = await pool.query(query)
      if (rows.length !== 1) return reply.code(500).send({ rows: rows.length })
      return rows[0]
    })
  }
  readRoute('/pg', 'bare_me', process.env.BARE_PG_TEXT, process.env.BARE_PG_VALUES)
  if (process.env.BARE_PG_GO_TEXT !== undefined)
    readRoute('/pg-go', 'bare_go', process.env.BARE_PG_GO_TEXT, process.env.BARE_PG_GO_VALUES)
}
await app.listen({ port: Number(process.env.PORT), host: '127.0.0.1' })
