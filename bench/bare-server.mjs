// The framework's own ceiling: a bare Fastify route returning a constant object, no hooks, no logs.
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
await app.listen({ port: Number(process.env.PORT), host: '127.0.0.1' })
