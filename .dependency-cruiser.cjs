/**
 * The import rules of docs/ARCHITECTURE.md ("Layers"), checked on every `npm test` by
 * `npm run lint:layers` (scripts/lint-layers.mjs: these rules, then the report of module climbs).
 * Imports point down only: server.ts → app.ts → modules/* → identity/ → plugins/, db/, lib/,
 * errors.ts, config.ts. Type-only imports count too: a type that has to reach up a layer is a sign
 * the code belongs elsewhere. A failure names the rule and the import (from → to).
 */
const LOWER_LAYERS = '^src/(plugins|lib|db)/|^src/(errors|config|logger)\\.ts$'
const TEST_FILES = '\\.test\\.ts$'

/**
 * The feature modules (the folders of src/modules/), bottom first. A module may import a module
 * below it; the order puts what many build on (mail, the audit trail, accounts) under what builds
 * on them (sign-in, administration, links, billing).
 *
 * A module climb is a pair (A, B) of feature modules such that a non-test source file of A
 * (src/modules/A/**, not *.test.ts) imports a file of B, and B is not below A in this order. It is
 * counted once per pair, however many imports make it. Every climb is in ALLOWED_CLIMBS with the
 * reason it remains; any other fails the lint (rule `module-climb`). A cycle between module folders
 * needs a climb, so the list is also the allow-list of folder-level cycles.
 */
const MODULE_ORDER = [
  'ai',
  'mail',
  'notifications',
  'audit',
  'keys',
  'users',
  'organizations',
  'mfa',
  'passkeys',
  'auth',
  'admin',
  'settings',
  'tokens',
  'oidc',
  'password-reset',
  'scim',
  'tags',
  'links',
  'collections',
  'go',
  'billing',
  'checklist',
  'health',
  'ops',
  'security-log',
]

/** `from > to`: the climbs that remain, each with its reason. Remove an entry with its climb. */
const ALLOWED_CLIMBS = {
  'mail > settings':
    'The SMTP server is a settings section (settings/sections.ts); mail reads it where it sends, ' +
    'and the SMTP settings send their test mail through mail.',
  'notifications > audit':
    "Changing one's notification preferences is audited, and the audit writer queues security " +
    "mail in the audited change's own transaction (the outbox), so each needs the other.",
  'users > mfa':
    'Deleting an account or changing its password asks for its second factor when it has one ' +
    '(mfa/service.ts assertSecondFactorIfEnabled).',
  'users > organizations':
    'The last owner of an organization cannot delete their account (organizations/ownership.ts).',
  'mfa > auth':
    'The second sign-in step answers as every sign-in does (auth/responses.ts, auth/schemas.ts).',
  'passkeys > auth':
    'A passkey sign-in answers as every sign-in does and spends the per-address login budget ' +
    '(auth/login-limits.ts).',
  'mfa > admin':
    "An administrator's reset of someone's MFA is an MFA route with the administrators' proof " +
    '(admin/reauth.ts, admin/users.schemas.ts).',
  'admin > password-reset':
    'An account created without a password gets its welcome, a set-your-password link ' +
    '(password-reset/service.ts welcomeNewUser).',
  'tags > links': 'A tag counts the links its owner sees (links/visibility.ts).',
}

/** Targets that fail the lint when exceeded (scripts/lint-layers.mjs). */
const LIMITS = { climbs: 20, mutualPairs: 10 }

/** The rule against climbs: per module, every module above it that ALLOWED_CLIMBS does not list. */
function climbRules() {
  return MODULE_ORDER.flatMap((module, index) => {
    const allowed = new Set(
      Object.keys(ALLOWED_CLIMBS)
        .map((climb) => climb.split(' > '))
        .filter(([from]) => from === module)
        .map(([, to]) => to),
    )
    const above = MODULE_ORDER.slice(index + 1).filter((to) => !allowed.has(to))
    if (above.length === 0) return []
    return [
      {
        name: 'module-climb',
        severity: 'error',
        comment:
          `${module} imports a module that is not below it in MODULE_ORDER: import the other way ` +
          'round, have the upper module register what is needed, or list the climb in ' +
          'ALLOWED_CLIMBS with its reason.',
        from: { path: `^src/modules/${module}/`, pathNot: TEST_FILES },
        to: { path: `^src/modules/(${above.join('|')})/` },
      },
    ]
  })
}

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
        'plugins/, lib/, db/, errors.ts, config.ts and logger.ts never import identity/ or a ' +
        'feature module; the module hands what is needed down through deps or a registration ' +
        'call (ARCHITECTURE.md "Layers").',
      from: { path: LOWER_LAYERS, pathNot: TEST_FILES },
      to: { path: '^src/(identity/|modules/|deps\\.ts$|app\\.ts$|server\\.ts$|cli\\.ts$)' },
    },
    {
      name: 'identity-imports-feature-module',
      severity: 'error',
      comment:
        'identity/ (who is calling) sits below every feature module and imports none: what it ' +
        'needs of one is handed down by registration (ARCHITECTURE.md "Layers").',
      from: { path: '^src/identity/', pathNot: TEST_FILES },
      to: { path: '^src/(modules/|app\\.ts$|server\\.ts$|cli\\.ts$)' },
    },
    {
      name: 'module-outside-order',
      severity: 'error',
      comment:
        'Every folder of src/modules/ has its place in MODULE_ORDER (.dependency-cruiser.cjs).',
      from: { path: '^src/modules/', pathNot: `^src/modules/(${MODULE_ORDER.join('|')})/` },
      to: {},
    },
    ...climbRules(),
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

// Read by scripts/lint-layers.mjs for its report; not enumerable, as dependency-cruiser accepts
// only its own keys in a configuration.
Object.defineProperty(module.exports, 'moduleLayers', {
  value: { order: MODULE_ORDER, allowedClimbs: ALLOWED_CLIMBS, limits: LIMITS },
  enumerable: false,
})
