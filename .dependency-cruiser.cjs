/**
 * The import rules of docs/ARCHITECTURE.md ("Layers"), checked on every `npm test` (npm run lint).
 * Imports point down only: server.ts → app.ts → modules/* → plugins/, db/, lib/, errors.ts,
 * config.ts. Type-only imports count too: a type that has to reach up a layer is a sign the code
 * belongs elsewhere. A failure names the rule and the import (from → to).
 */
const LOWER_LAYERS = '^src/(plugins|lib|db)/|^src/(errors|config|logger)\\.ts$'
const TEST_FILES = '\\.test\\.ts$'

/** @type {import('dependency-cruiser').IConfiguration} */
module.exports = {
  forbidden: [
    {
      name: 'no-circular',
      severity: 'error',
      comment:
        'An import circle: modules in a circle cannot be understood, tested or loaded one at a time.',
      from: { path: '^(src|test|bench|web)/' },
      to: { circular: true },
    },
    {
      name: 'lower-layer-imports-feature-module',
      severity: 'error',
      comment:
        'plugins/, lib/, db/, errors.ts, config.ts and logger.ts never import a feature module; ' +
        'the module hands what is needed down through deps or a registration call (ARCHITECTURE.md "Layers").',
      from: { path: LOWER_LAYERS, pathNot: TEST_FILES },
      to: { path: '^src/(modules/|deps\\.ts$|app\\.ts$|server\\.ts$|cli\\.ts$)' },
    },
    {
      name: 'deps-imports-plugin',
      severity: 'error',
      comment: 'deps.ts builds adapters; it imports no plugin (ARCHITECTURE.md "Layers").',
      from: { path: '^src/deps\\.ts$' },
      to: { path: '^src/plugins/' },
    },
    {
      name: 'module-imports-other-module-routes',
      severity: 'error',
      comment: "A module may call another module's service or repo, never its routes.",
      from: { path: '^src/modules/([^/]+)/', pathNot: TEST_FILES },
      to: { path: '^src/modules/[^/]+/[^/]*routes\\.ts$', pathNot: '^src/modules/$1/' },
    },
    {
      name: 'nothing-imports-app-entry-points',
      severity: 'error',
      comment:
        'server.ts (with start.ts behind its version check) and cli.ts are entry points; app.ts is imported only by them and by tests.',
      from: { path: '^src/', pathNot: `^src/(server|start|cli)\\.ts$|${TEST_FILES}` },
      to: { path: '^src/(server|start|cli|app)\\.ts$' },
    },
    {
      name: 'migration-imports-app-code',
      severity: 'error',
      comment:
        'Migrations are frozen in time: they never import application code, which keeps changing.',
      from: { path: '^src/migrations/' },
      to: { path: '^src/', pathNot: '^src/migrations/' },
    },
    {
      name: 'production-imports-tests',
      severity: 'error',
      comment: 'Production code never knows it is being tested.',
      from: { path: '^src/', pathNot: TEST_FILES },
      to: { path: `^test/|^bench/|${TEST_FILES}` },
    },
    {
      name: 'console-imports-service',
      severity: 'error',
      comment:
        'The console (web/) talks to the service over HTTP only (the generated OpenAPI client). Its end-to-end tests (web/e2e/) may use the shared test stand-ins (test/helpers/: SMTP, OIDC provider, the built server process), never service code.',
      from: { path: '^web/' },
      to: { path: '^(src|test|bench)/', pathNot: '^test/helpers/' },
    },
    {
      name: 'console-app-imports-test-helpers',
      severity: 'error',
      comment:
        'Only the end-to-end tests may use the test stand-ins; the application bundle never does.',
      from: { path: '^web/src/' },
      to: { path: '^test/' },
    },
    {
      name: 'service-imports-console',
      severity: 'error',
      comment: 'The service, its tests and the benchmark do not depend on the console.',
      from: { path: '^(src|test|bench)/' },
      to: { path: '^web/' },
    },
    {
      name: 'not-to-unresolvable',
      severity: 'error',
      comment:
        'An import that resolves to nothing (a typo, or a package missing from package.json).',
      from: {},
      to: { couldNotResolve: true },
    },
  ],
  options: {
    // `depcruise .` checks whatever of these exists (web/ arrives with the console).
    includeOnly: '^(src|test|bench|web)/',
    doNotFollow: { path: 'node_modules' },
    exclude: { path: '(^|/)(dist|coverage|node_modules)/' },
    // Type-only imports are dependencies too (see above).
    tsPreCompilationDeps: true,
    tsConfig: { fileName: 'tsconfig.json' },
    enhancedResolveOptions: {
      exportsFields: ['exports'],
      conditionNames: ['import', 'require', 'node', 'default', 'types'],
      extensions: ['.ts', '.tsx', '.d.ts', '.js', '.mjs', '.cjs', '.json'],
    },
    skipAnalysisNotInRules: true,
  },
}
