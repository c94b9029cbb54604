/**
 * The Node.js lines this service runs on (package.json `engines`: `^22.16 || ^24`, the lines CI
 * tests). Checked by the entry points before anything else is loaded: an older Node would
 * otherwise fail later, in a dependency, with an error that does not say what to do. A newer line
 * is not refused here (npm warns about `engines` at install): it starts, with only the V8 flags it
 * knows (process-settings.ts). Imports nothing, so it loads on any Node.
 */
export const SUPPORTED_NODE = 'Node.js 24 LTS (recommended) or 22 LTS (22.16 or later)'

/** One line telling the operator which Node this needs, or null when `version` is supported. */
export function unsupportedNodeMessage(version: string): string | null {
  const [major = 0, minor = 0] = version.replace(/^v/, '').split('.').map(Number)
  const supported = major >= 24 || (major === 22 && minor >= 16)
  return supported
    ? null
    : `switchboard: needs ${SUPPORTED_NODE}; this is Node.js ${version.replace(/^v/, '')}\n`
}

/** Stops the process with that line when this Node is not supported. */
export function exitUnlessSupportedNode(): void {
  const message = unsupportedNodeMessage(process.versions.node)
  if (message === null) return
  process.stderr.write(message)
  process.exit(1)
}
