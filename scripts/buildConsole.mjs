// Bundles the web console (web/console/) into dist/web/: console.js, console.css and index.html, which the daemon
// serves at `/` (adapters/http/console.ts). Type checking is `tsc -p web/tsconfig.json --noEmit`, run before this.
import { build } from 'esbuild'
import { chmod, copyFile, mkdir, readdir, stat } from 'node:fs/promises'
import { fileURLToPath } from 'node:url'

const root = fileURLToPath(new URL('../', import.meta.url))
const outdir = `${root}dist/web`
const started = performance.now()

await mkdir(outdir, { recursive: true })
const result = await build({
  absWorkingDir: root,
  entryPoints: [
    { in: 'web/console/main.ts', out: 'console' },
    { in: 'web/console/console.css', out: 'console' },
  ],
  outdir,
  bundle: true,
  format: 'esm',
  platform: 'browser',
  target: ['chrome115', 'firefox115', 'safari16'],
  minify: true,
  sourcemap: 'linked',
  legalComments: 'none',
  logLevel: 'warning',
  metafile: true,
})
await copyFile(`${root}web/console/index.html`, `${outdir}/index.html`)
// The person's alone, like everything else of Quire's (issue 11, finding 6): the daemon that serves it runs as them.
await chmod(outdir, 0o700)
for (const name of await readdir(outdir)) await chmod(`${outdir}/${name}`, 0o600)

const sizes = await Promise.all(['console.js', 'console.css'].map(async (name) => `${name} ${((await stat(`${outdir}/${name}`)).size / 1024).toFixed(0)} KiB`))
const elapsed = Math.round(performance.now() - started)
if (result.errors.length === 0) console.log(`console built in ${elapsed} ms: ${sizes.join(', ')}`)
