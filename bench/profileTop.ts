import { readdirSync, readFileSync, statSync } from 'node:fs'
import { basename, join, relative } from 'node:path'

/**
 * `node dist/bench/profileTop.js [--top N] PATH...`: the top self-time frames of V8 CPU profiles (`--cpu-prof`
 * output; a directory stands for every .cpuprofile in it, pooled), as a table of milliseconds and shares of the
 * sampled time. How the flame summaries in bench/RESULTS.md are made: one frame is a function at its source place,
 * so the same function reached from different callers adds up.
 */

interface ProfileNode {
  readonly id: number
  readonly callFrame: { readonly functionName: string; readonly url: string; readonly lineNumber: number }
}

interface Profile {
  readonly nodes: readonly ProfileNode[]
  readonly samples: readonly number[]
  readonly timeDeltas: readonly number[]
}

function profilesIn(path: string): string[] {
  if (!statSync(path).isDirectory()) return [path]
  return readdirSync(path).filter((name) => name.endsWith('.cpuprofile')).map((name) => join(path, name))
}

function frameName(node: ProfileNode): string {
  const { functionName, url, lineNumber } = node.callFrame
  const name = functionName === '' ? '(anonymous)' : functionName
  if (url === '') return name
  // A dependency by its package path, Quire's own code by its path under dist/: the same wherever the tree lies.
  const path = url.startsWith('file://') ? new URL(url).pathname : basename(url)
  const dependency = path.lastIndexOf('/node_modules/')
  const own = path.lastIndexOf('/dist/')
  const file =
    dependency >= 0 ? path.slice(dependency + '/node_modules/'.length)
    : own >= 0 ? path.slice(own + 1)
    : url.startsWith('file://') ? relative(process.cwd(), path) : path
  return `${name} ${file}:${lineNumber + 1}`
}

const args = process.argv.slice(2)
const topAt = args.indexOf('--top')
const top = topAt === -1 ? 10 : Number(args[topAt + 1])
const paths = topAt === -1 ? args : args.filter((_, index) => index !== topAt && index !== topAt + 1)
if (paths.length === 0 || !Number.isInteger(top) || top < 1) {
  console.error('usage: node dist/bench/profileTop.js [--top N] PROFILE_OR_DIR...')
  process.exit(2)
}

const selfMicros = new Map<string, number>()
let totalMicros = 0
let files = 0
for (const file of paths.flatMap(profilesIn)) {
  const profile = JSON.parse(readFileSync(file, 'utf8')) as Profile
  files++
  const names = new Map(profile.nodes.map((node) => [node.id, frameName(node)]))
  profile.samples.forEach((id, index) => {
    const delta = profile.timeDeltas[index] ?? 0
    const name = names.get(id) ?? '(unknown)'
    selfMicros.set(name, (selfMicros.get(name) ?? 0) + delta)
    totalMicros += delta
  })
}
// Idle time is the process waiting, not working: shares are of the busy time.
const idle = selfMicros.get('(idle)') ?? 0
const busy = totalMicros - idle
console.log(`${files} profile(s): ${(totalMicros / 1000).toFixed(0)} ms sampled, ${(busy / 1000).toFixed(0)} ms busy (idle excluded below)`)
const rows = [...selfMicros].filter(([name]) => name !== '(idle)').sort((a, b) => b[1] - a[1]).slice(0, top)
console.log('| self ms | share of busy | frame |\n|---|---|---|')
for (const [name, micros] of rows) console.log(`| ${(micros / 1000).toFixed(0)} | ${((micros / busy) * 100).toFixed(1)} % | \`${name}\` |`)
