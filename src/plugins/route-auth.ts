/**
 * What a route declares about its caller (ARCHITECTURE.md §6), read by the lower layers that
 * adapt to it (the OpenAPI document lists the matching error statuses). The auth module's hook
 * (modules/auth/hook.ts) enforces it:
 *
 *   config: { auth: 'public' }   no credentials needed
 *   (default)                    any signed-in user, by session or API token
 *   config: { auth: 'session' }  an interactive session only (CONTRACT.md §5.4)
 *   config: { auth: 'admin' }    an administrator (CONTRACT.md §5.3)
 */
export type AuthRequirement = 'public' | 'user' | 'session' | 'admin'

declare module 'fastify' {
  interface FastifyContextConfig {
    auth?: AuthRequirement
  }
}
