// `npm start` runs this before `quire serve`: the full build (`npm run build`) only when an input of it changed
// since the last successful build, so a restart is quick. Inputs are compared by content (a checkout or an editor
// that only touches mtimes does not count as a change); the fingerprint is kept in dist/.build-inputs and written
// only after the build succeeded. A fresh clone has no dist/, hence no fingerprint, and builds.
//
//   node scripts/buildIfChanged.mjs [--root DIR] [--build-command CMD]
//
// --root and --build-command exist for the tests (specs/cli/buildIfChanged.test.ts); npm start passes neither.
import { spawnSync } from 'node:child_process'
import { createHash } from 'node:crypto'
import { readdir, readFile, writeFile, access } from 'node:fs/promises'
import { join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { parseArgs } from 'node:util'

const { values } = parseArgs({ options: { root: { type: 'string' }, 'build-command': { type: 'string' } } })
const root = values.root ?? fileURLToPath(new URL('../', import.meta.url))
const buildCommand = values['build-command'] ?? 'npm run build --silent'

/** What `npm run build` reads: the two TypeScript projects' folders, the console's assets, and its configuration. */
const SOURCE_FOLDERS = ['core', 'projections', 'adapters', 'bench', 'specs', 'web']
const SOURCE_FILE = /\.(ts|mts|css|html)$/
const CONFIG_FILES = ['package.json', 'package-lock.json', 'tsconfig.json', 'web/tsconfig.json', 'scripts/buildConsole.mjs']
/** What the build makes and `quire serve` needs: missing ones mean a build, whatever the fingerprint says. */
const OUTPUTS = ['dist/adapters/cli/main.js', 'dist/web/console.js', 'dist/web/index.html']
const FINGERPRINT = 'dist/.build-inputs'

async function sourceFiles(folder) {
  const found = []
  let entries
  try {
    entries = await readdir(join(root, folder), { withFileTypes: true })
  } catch (error) {
    if (error.code === 'ENOENT') return found
    throw error
  }
  for (const entry of entries) {
    if (entry.name === 'node_modules' || entry.name === 'dist') continue
    const path = join(folder, entry.name)
    if (entry.isDirectory()) found.push(...(await sourceFiles(path)))
    else if (entry.isFile() && SOURCE_FILE.test(entry.name)) found.push(path)
  }
  return found
}

async function fingerprint() {
  const files = [...CONFIG_FILES]
  for (const folder of SOURCE_FOLDERS) files.push(...(await sourceFiles(folder)))
  files.sort()
  const hash = createHash('sha256')
  for (const file of files) {
    const bytes = await readFile(join(root, file)).catch((error) => {
      if (error.code === 'ENOENT') return null
      throw error
    })
    // Name and content, each framed by its length, so no two different trees hash alike.
    const name = Buffer.from(file)
    hash.update(`${name.length}:`).update(name)
    hash.update(bytes === null ? '-' : `${bytes.length}:`)
    if (bytes !== null) hash.update(bytes)
  }
  return hash.digest('hex')
}

const exists = (path) => access(join(root, path)).then(() => true, () => false)

const current = await fingerprint()
const recorded = await readFile(join(root, FINGERPRINT), 'utf8').then((text) => text.trim(), () => undefined)
const outputsThere = (await Promise.all(OUTPUTS.map(exists))).every(Boolean)
if (recorded === current && outputsThere) process.exit(0)

const build = spawnSync(buildCommand, { cwd: root, stdio: 'inherit', shell: true })
if (build.status !== 0) {
  process.stderr.write(`buildIfChanged: the build failed (${build.status ?? build.signal}); not starting\n`)
  process.exit(build.status || 1)
}
// The inputs as they were when the build began: a file edited during the build makes the next start build again.
await writeFile(join(root, FINGERPRINT), `${current}\n`, { mode: 0o600 })
