/**
 * The table of every route the application serves, filled as routes are registered. It answers
 * "which methods exist on this path?" (405 vs 404) and lets tests derive their route lists from
 * what is really served instead of from a hand-kept copy.
 */
import type { FastifyInstance } from 'fastify'
import FindMyWay, { type HTTPMethod } from 'find-my-way'

export interface RouteEntry {
  method: string
  url: string
  auth: string
}

const METHODS: HTTPMethod[] = ['GET', 'HEAD', 'POST', 'PUT', 'PATCH', 'DELETE', 'OPTIONS']

export class RouteTable {
  readonly entries: RouteEntry[] = []
  readonly #router = FindMyWay({ ignoreTrailingSlash: false })

  add(method: string, url: string, auth: string): void {
    this.entries.push({ method, url, auth })
    if (!this.#router.hasRoute(method as HTTPMethod, url))
      this.#router.on(method as HTTPMethod, url, () => undefined)
  }

  /** The methods served on a concrete request path (empty when the path is unknown). */
  methodsFor(path: string): HTTPMethod[] {
    return METHODS.filter((method) => this.#router.find(method, path) !== null)
  }
}

declare module 'fastify' {
  interface FastifyInstance {
    routeTable: RouteTable
  }
}

export function installRouteTable(app: FastifyInstance): RouteTable {
  const table = new RouteTable()
  app.decorate('routeTable', table)
  app.addHook('onRoute', (route) => {
    for (const method of [route.method].flat())
      table.add(method, route.url, route.config?.auth ?? 'user')
  })
  return table
}
