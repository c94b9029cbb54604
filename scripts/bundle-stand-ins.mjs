/**
 * Stand-ins for the server bundle (scripts/bundle-server.mjs). Some dependencies require, as they
 * load, a package that the service then seldom or never calls; bundled, each would hold its
 * source, compiled top-level code and objects for the life of the process. A stand-in has the
 * package's functions, and getters for its objects, and loads the real package from node_modules
 * on first use. test/bundle-stand-ins.test.ts checks every name against the installed package, so
 * an update that renames one fails the suite, not a server in production.
 */

/**
 * The packages replaced: the files that require each (any other importer fails the build, so a new
 * one is checked before it gets a stand-in) and the names those files use.
 */
export const STAND_INS = {
  // @fastify/swagger: YAML output of the OpenAPI document (the service serves it as JSON).
  yaml: {
    dependents: [
      '@fastify/swagger/lib/spec/openapi/index.js',
      '@fastify/swagger/lib/spec/swagger/index.js',
      '@fastify/swagger/lib/mode/static.js',
    ],
    functions: ['parse', 'stringify'],
    objects: [],
  },
  // @fastify/static: listing the served directory, only with `wildcard: false` (the console
  // serves the files it names).
  glob: { dependents: ['@fastify/static/index.js'], functions: ['glob'], objects: [] },
  // prom-client: the active trace for exemplars, which the service does not turn on.
  '@opentelemetry/api': {
    dependents: ['prom-client/lib/metrics/processCpuTotal.js'],
    functions: [],
    objects: ['trace', 'context'],
  },
}

const PREFIX = '\0stand-in:'

/** CommonJS source of a stand-in; its own require of the package stays external (run time). */
export function standInSource(name) {
  const { functions, objects } = STAND_INS[name]
  return [
    `let real;`,
    `const load = () => (real ??= require(${JSON.stringify(name)}));`,
    ...functions.map(
      (fn) => `exports.${fn} = function (...args) { return load().${fn}.apply(this, args) };`,
    ),
    ...objects.map(
      (key) =>
        `Object.defineProperty(exports, ${JSON.stringify(key)}, { enumerable: true, get: () => load().${key} });`,
    ),
  ].join('\n')
}

/** The rolldown plugin: a dependency's import of a listed package gets its stand-in. */
export const standIns = {
  name: 'stand-ins',
  resolveId(source, importer) {
    if (!Object.hasOwn(STAND_INS, source)) return null
    if (importer?.startsWith(PREFIX)) return { id: source, external: true }
    const known = STAND_INS[source].dependents.some((file) =>
      importer?.replaceAll('\\', '/').endsWith(`/node_modules/${file}`),
    )
    if (!known)
      throw new Error(
        `${importer} requires ${source}: list it in scripts/bundle-stand-ins.mjs once the names it uses are there`,
      )
    return PREFIX + source
  },
  load(id) {
    return id.startsWith(PREFIX)
      ? { code: standInSource(id.slice(PREFIX.length)), moduleType: 'js' }
      : null
  },
}
