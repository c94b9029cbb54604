/**
 * Imported first by the CLI entry (cli.ts): modules evaluate in import order, so this stops an
 * unsupported Node with one line before any dependency that could fail on it runs.
 */
import { exitUnlessSupportedNode } from './node-version.js'

exitUnlessSupportedNode()
