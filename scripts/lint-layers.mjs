/**
 * `npm run lint:layers`: dependency-cruiser's check of the import rules (.dependency-cruiser.cjs),
 * then a short report of how the feature modules depend on one another — the module climbs (an
 * import of a module that is not below the importing one in MODULE_ORDER; defined in the config)
 * and the pairs of modules that import each other, both counted over non-test source files.
 * Exits non-zero on a rule violation, on a count above its limit (LIMITS in the config), and on an
 * entry of ALLOWED_CLIMBS that no longer occurs (the list says what remains, no more).
 */
import { spawnSync } from 'node:child_process'
import { createRequire } from 'node:module'
import path from 'node:path'
import { pathToFileURL } from 'node:url'

const MODULE = /^src\/modules\/([^/]+)\//
const TEST_FILE = /\.test\.ts$/

/**
 * The feature-module graph of a cruise: `from > to` for every pair (A, B), A ≠ B, where a non-test
 * source file of module A imports a file of module B.
 */
export function moduleImports(modules) {
  const pairs = new Set()
  for (const { source, dependencies } of modules) {
    const from = MODULE.exec(source)?.[1]
    if (from === undefined || TEST_FILE.test(source)) continue
    for (const { resolved } of dependencies) {
      const to = MODULE.exec(resolved)?.[1]
      if (to !== undefined && to !== from) pairs.add(`${from} > ${to}`)
    }
  }
  return pairs
}

/** The climbs, the mutual pairs and every problem with them, for a module graph and the layers. */
export function layerReport(imports, { order, allowedClimbs, limits }) {
  const position = new Map(order.map((module, index) => [module, index]))
  const climbs = [...imports]
    .filter((pair) => {
      const [from, to] = pair.split(' > ')
      return !(position.get(to) < position.get(from))
    })
    .sort()
  const mutualPairs = [...imports]
    .map((pair) => pair.split(' > '))
    .filter(([from, to]) => from < to && imports.has(`${to} > ${from}`))
    .map(([from, to]) => `${from}-${to}`)
    .sort()
  const problems = []
  if (climbs.length > limits.climbs)
    problems.push(`${climbs.length} module climbs, more than ${limits.climbs}`)
  if (mutualPairs.length > limits.mutualPairs)
    problems.push(
      `${mutualPairs.length} pairs importing each other, more than ${limits.mutualPairs}`,
    )
  for (const climb of climbs) {
    if (!(climb in allowedClimbs)) problems.push(`climb ${climb} is not in ALLOWED_CLIMBS`)
  }
  for (const climb of Object.keys(allowedClimbs)) {
    if (!climbs.includes(climb))
      problems.push(`ALLOWED_CLIMBS lists ${climb}, which no longer climbs: remove the entry`)
  }
  return { climbs, mutualPairs, problems }
}

export function formatReport({ climbs, mutualPairs, problems }, limits) {
  const lines = [
    `module climbs: ${climbs.length} (limit ${limits.climbs})` +
      (climbs.length === 0 ? '' : `: ${climbs.join(', ')}`),
    `pairs of modules importing each other: ${mutualPairs.length} (limit ${limits.mutualPairs})` +
      (mutualPairs.length === 0 ? '' : `: ${mutualPairs.join(', ')}`),
    ...problems.map((problem) => `error ${problem}`),
  ]
  return `${lines.join('\n')}\n`
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? '').href) {
  const root = path.resolve(import.meta.dirname, '..')
  const config = path.join(root, '.dependency-cruiser.cjs')
  const { format } = await import('dependency-cruiser')
  const cruise = spawnSync(
    path.join(root, 'node_modules/.bin/depcruise'),
    ['.', '--config', config, '--output-type', 'json'],
    { cwd: root, encoding: 'utf8', maxBuffer: 256 * 1024 * 1024 },
  )
  if (cruise.stdout === '') {
    process.stderr.write(cruise.stderr)
    process.exit(cruise.status ?? 1)
  }
  const result = JSON.parse(cruise.stdout)
  const rules = await format(result, { outputType: 'err' })
  process.stdout.write(rules.output)
  const layers = createRequire(import.meta.url)(config).moduleLayers
  const report = layerReport(moduleImports(result.modules), layers)
  process.stdout.write(formatReport(report, layers.limits))
  process.exitCode = rules.exitCode > 0 || report.problems.length > 0 ? 1 : 0
}
