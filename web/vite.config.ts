/**
 * Builds the console into dist/web: hashed assets, a brotli and a gzip copy of every text asset
 * (the server sends them as they are), and a size report. The sign-in page's budget — 150 KB of
 * compressed JavaScript and CSS — fails the build when exceeded.
 */
import fs from 'node:fs'
import path from 'node:path'
import zlib from 'node:zlib'
import react from '@vitejs/plugin-react'
import { defineConfig, type Plugin } from 'vite'

const OUT_DIR = path.resolve(import.meta.dirname, '../dist/web')
const SIGN_IN_BUDGET_BYTES = 150 * 1024
const TEXT_ASSET = /\.(js|css|html|svg|json|txt)$/

function brotli(data: Buffer): Buffer {
  return zlib.brotliCompressSync(data, {
    params: { [zlib.constants.BROTLI_PARAM_QUALITY]: 11, [zlib.constants.BROTLI_PARAM_SIZE_HINT]: data.length },
  })
}

/** Writes .br and .gz next to every text asset, then reports the sizes. */
function precompressAndReport(): Plugin {
  return {
    name: 'switchboard-precompress',
    apply: 'build',
    writeBundle(_options, bundle) {
      const sizes = new Map<string, { raw: number; br: number; gz: number }>()
      for (const fileName of Object.keys(bundle)) {
        if (!TEXT_ASSET.test(fileName)) continue
        const file = path.join(OUT_DIR, fileName)
        const data = fs.readFileSync(file)
        const br = brotli(data)
        const gz = zlib.gzipSync(data, { level: 9 })
        fs.writeFileSync(`${file}.br`, br)
        fs.writeFileSync(`${file}.gz`, gz)
        sizes.set(fileName, { raw: data.length, br: br.length, gz: gz.length })
      }

      // What /login loads: the entry chunk, every chunk it imports statically, and their CSS.
      const initial = new Set<string>()
      const visit = (fileName: string) => {
        if (initial.has(fileName)) return
        initial.add(fileName)
        const chunk = bundle[fileName]
        if (chunk?.type !== 'chunk') return
        for (const css of chunk.viteMetadata?.importedCss ?? []) initial.add(css)
        for (const imported of chunk.imports) visit(imported)
      }
      for (const [fileName, chunk] of Object.entries(bundle)) if (chunk.type === 'chunk' && chunk.isEntry) visit(fileName)

      const kb = (bytes: number) => `${(bytes / 1024).toFixed(1)} KB`
      const lines = [...sizes].filter(([name]) => !name.endsWith('.html')).sort(([a], [b]) => a.localeCompare(b))
      console.log('\nconsole assets (raw / brotli / gzip):')
      for (const [name, size] of lines) {
        console.log(
          `  ${initial.has(name) ? '*' : ' '} ${name.padEnd(44)} ${kb(size.raw).padStart(10)} ${kb(size.br).padStart(10)} ${kb(size.gz).padStart(10)}`,
        )
      }
      const total = (key: 'br' | 'gz') => [...initial].reduce((sum, name) => sum + (sizes.get(name)?.[key] ?? 0), 0)
      console.log(
        `  * sign-in page (JS + CSS loaded by /login): ${kb(total('br'))} brotli, ${kb(total('gz'))} gzip (budget ${kb(SIGN_IN_BUDGET_BYTES)})\n`,
      )
      if (total('gz') > SIGN_IN_BUDGET_BYTES)
        throw new Error(`the sign-in page loads ${kb(total('gz'))} gzip, over the ${kb(SIGN_IN_BUDGET_BYTES)} budget`)
    },
  }
}

export default defineConfig({
  root: import.meta.dirname,
  base: '/',
  plugins: [react(), precompressAndReport()],
  logLevel: 'warn',
  build: {
    outDir: OUT_DIR,
    emptyOutDir: true,
    assetsDir: 'assets',
    sourcemap: false,
    // No inline script or data: module: the CSP allows only this origin's scripts.
    assetsInlineLimit: 0,
    modulePreload: { polyfill: false },
    reportCompressedSize: false,
  },
})
