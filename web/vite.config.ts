/**
 * Builds the console into dist/web: hashed assets, a brotli and a gzip copy of every text asset
 * (the server sends them as they are), and a size report. The sign-in page's budget — 100 KB of
 * brotli-compressed JavaScript and CSS — fails the build when exceeded.
 */
import fs from 'node:fs'
import path from 'node:path'
import zlib from 'node:zlib'
import react from '@vitejs/plugin-react'
import { defineConfig, type Plugin } from 'vite'

const OUT_DIR = path.resolve(import.meta.dirname, '../dist/web')
const SIGN_IN_BUDGET_BYTES = 100 * 1024
/** The sign-in catalogue of one language, loaded before the first render (web/src/i18n/i18n.tsx). */
const SIGN_IN_CATALOGUE = /\/i18n\/(en|de)\.json$/
const TEXT_ASSET = /\.(js|css|html|svg|json|txt)$/

function brotli(data: Buffer): Buffer {
  return zlib.brotliCompressSync(data, {
    params: {
      [zlib.constants.BROTLI_PARAM_QUALITY]: 11,
      [zlib.constants.BROTLI_PARAM_SIZE_HINT]: data.length,
    },
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
      for (const [fileName, chunk] of Object.entries(bundle))
        if (chunk.type === 'chunk' && chunk.isEntry) visit(fileName)
      // Plus one language's catalogue (the larger of the two), which main.tsx loads before rendering.
      const catalogueChunks = new Map<string, string[]>()
      for (const [fileName, chunk] of Object.entries(bundle)) {
        const language =
          chunk.type === 'chunk'
            ? SIGN_IN_CATALOGUE.exec(chunk.facadeModuleId ?? '')?.[1]
            : undefined
        if (language !== undefined)
          catalogueChunks.set(language, [...(catalogueChunks.get(language) ?? []), fileName])
      }

      const kb = (bytes: number) => `${(bytes / 1024).toFixed(1)} KB`
      const lines = [...sizes]
        .filter(([name]) => !name.endsWith('.html'))
        .sort(([a], [b]) => a.localeCompare(b))
      console.log('\nconsole assets (raw / brotli / gzip):')
      for (const [name, size] of lines) {
        console.log(
          `  ${initial.has(name) ? '*' : ' '} ${name.padEnd(44)} ${kb(size.raw).padStart(10)} ${kb(size.br).padStart(10)} ${kb(size.gz).padStart(10)}`,
        )
      }
      const sum = (names: Iterable<string>, key: 'br' | 'gz') =>
        [...names].reduce((total, name) => total + (sizes.get(name)?.[key] ?? 0), 0)
      let largest = { language: '', br: 0, gz: 0 }
      for (const [language, names] of catalogueChunks) {
        const br = sum(names, 'br')
        console.log(`    ${language} sign-in catalogue: ${names.join(', ')} ${kb(br)} brotli`)
        if (br > largest.br) largest = { language, br, gz: sum(names, 'gz') }
      }
      const total = { br: sum(initial, 'br') + largest.br, gz: sum(initial, 'gz') + largest.gz }
      console.log(
        `  * sign-in page (JS + CSS loaded by /login, ${largest.language} catalogue): ${kb(total.br)} brotli, ${kb(total.gz)} gzip (budget ${kb(SIGN_IN_BUDGET_BYTES)} brotli)\n`,
      )
      if (catalogueChunks.size === 0)
        throw new Error(
          'the sign-in catalogues were not found among the chunks (web/src/i18n/i18n.tsx)',
        )
      if (total.br > SIGN_IN_BUDGET_BYTES)
        throw new Error(
          `the sign-in page loads ${kb(total.br)} brotli, over the ${kb(SIGN_IN_BUDGET_BYTES)} budget`,
        )
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
    rolldownOptions: {
      output: {
        // Vite's dynamic-import helper and the bundler's runtime are shared by many lazy chunks; on
        // their own they were two more files on the sign-in page (+0.9 KB brotli against its
        // budget). Kept with the catalogue loader, which the sign-in page loads anyway.
        codeSplitting: {
          groups: [
            {
              name: 'i18n',
              test: /vite\/preload-helper|\/web\/src\/i18n\/i18n\.tsx$|\/web\/src\/api\/errors\.ts$|use-sync-external-store|\/useRouter\.js$/,
            },
          ],
        },
      },
    },
  },
})
