/**
 * Response serializers compiled on first use. Fastify compiles a fast-json-stringify serializer for
 * every status of every route's response schema when the application becomes ready — several
 * hundred here, since each route also lists the shared error statuses (plugins/openapi.ts). That
 * would be most of the start-up time and leave a large heap behind, so a route's serializer is
 * compiled by its first response with that status, and kept
 * (docs/decisions/0002-start-up-footprint.md).
 */
import { SerializerSelector } from '@fastify/fast-json-stringify-compiler'

type SerializerFactory = ReturnType<typeof SerializerSelector>
type RouteSerializerCompiler = ReturnType<SerializerFactory>

export function lazySerializerFactory(): SerializerFactory {
  const eager = SerializerSelector()
  return (externalSchemas, options) => {
    const compile: RouteSerializerCompiler = eager(externalSchemas, options)
    return (route) => {
      let serialize: ((data: unknown) => string) | undefined
      return (data: unknown) => (serialize ??= compile(route) as (data: unknown) => string)(data)
    }
  }
}
