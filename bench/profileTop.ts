import { readdirSync, readFileSync, statSync } from 'node:fs'
import { basename, join, relative } from 'node:path'

/**
 * `node dist/bench/profileTop.js [--top N] [--within FUNCTION] [--inclusive F1,F2] PATH...`: the top self-time
 * frames of V8 CPU profiles (`--cpu-prof` output; a directory stands for every .cpuprofile in it, pooled), as a table
 * of milliseconds and shares of the sampled time. How the flame summaries in bench/RESULTS.md are made: one frame is
 * a function at its source place, so the same function reached from different callers adds up.
 *
 * `--within FUNCTION` keeps only the samples from the first to the last one whose stack holds a function of that
 * name (a benchmark's busy window, without the start-up and shutdown around it). `--inclusive` adds the share of
 * samples whose stack holds each named function (counted once per sample, however deep the recursion).
 */

interface ProfileNode {
  readonly id: number
  readonly callFrame: { readonly functionName: string; readonly url: string; readonly lineNumber: number }
  readonly children?: readonly number[]
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

/** The function names on each node's stack, the node's own included. */
function stacksOf(profile: Profile): Map<number, ReadonlySet<string>> {
  const parent = new Map<number, number>()
  for (const node of profile.nodes) for (const child of node.children ?? []) parent.set(child, node.id)
  const byId = new Map(profile.nodes.map((node) => [node.id, node]))
  const stacks = new Map<number, ReadonlySet<string>>()
  const stackOf = (id: number): ReadonlySet<string> => {
    const known = stacks.get(id)
    if (known) return known
    const above = parent.get(id)
    const names = new Set(above === undefined ? [] : stackOf(above))
    names.add(byId.get(id)!.callFrame.functionName)
    stacks.set(id, names)
    return names
  }
  for (const node of profile.nodes) stackOf(node.id)
  return stacks
}

function option(args: string[], name: string): string | undefined {
  const at = args.indexOf(name)
  if (at === -1) return undefined
  const [, value] = args.splice(at, 2)
  return value
}

const args = process.argv.slice(2)
const top = Number(option(args, '--top') ?? 10)
const within = option(args, '--within')
const inclusiveNames = (option(args, '--inclusive') ?? '').split(',').filter((name) => name.length > 0)
const paths = args
if (paths.length === 0 || !Number.isInteger(top) || top < 1) {
  console.error('usage: node dist/bench/profileTop.js [--top N] [--within FUNCTION] [--inclusive F1,F2] PROFILE_OR_DIR...')
  process.exit(2)
}

const selfMicros = new Map<string, number>()
const inclusiveMicros = new Map<string, number>(inclusiveNames.map((name) => [name, 0]))
let totalMicros = 0
let files = 0
for (const file of paths.flatMap(profilesIn)) {
  const profile = JSON.parse(readFileSync(file, 'utf8')) as Profile
  files++
  const names = new Map(profile.nodes.map((node) => [node.id, frameName(node)]))
  const stacks = stacksOf(profile)
  let first = 0
  let last = profile.samples.length - 1
  if (within !== undefined) {
    const inside = (id: number) => stacks.get(id)?.has(within) ?? false
    first = profile.samples.findIndex(inside)
    last = profile.samples.findLastIndex(inside)
    if (first === -1) continue
  }
  for (let index = first; index <= last; index++) {
    const id = profile.samples[index]!
    // A sample's delta is the time since the one before it: the time up to this sample, spent as it shows.
    const delta = profile.timeDeltas[index] ?? 0
    const name = names.get(id) ?? '(unknown)'
    selfMicros.set(name, (selfMicros.get(name) ?? 0) + delta)
    totalMicros += delta
    const stack = stacks.get(id)
    for (const inclusive of inclusiveNames) if (stack?.has(inclusive)) inclusiveMicros.set(inclusive, inclusiveMicros.get(inclusive)! + delta)
  }
}
// Idle time is the process waiting, not working: shares are of the busy time.
const idle = selfMicros.get('(idle)') ?? 0
const busy = totalMicros - idle
const window = within === undefined ? '' : `, from the first to the last sample inside ${within}`
console.log(`${files} profile(s): ${(totalMicros / 1000).toFixed(0)} ms sampled${window}, ${(busy / 1000).toFixed(0)} ms busy (idle excluded below)`)
const rows = [...selfMicros].filter(([name]) => name !== '(idle)').sort((a, b) => b[1] - a[1]).slice(0, top)
console.log('| self ms | share of busy | frame |\n|---|---|---|')
for (const [name, micros] of rows) console.log(`| ${(micros / 1000).toFixed(0)} | ${((micros / busy) * 100).toFixed(1)} % | \`${name}\` |`)
if (inclusiveNames.length > 0) {
  console.log('\n| inclusive ms | share of busy | function (anywhere on the stack) |\n|---|---|---|')
  for (const [name, micros] of inclusiveMicros) console.log(`| ${(micros / 1000).toFixed(0)} | ${((micros / busy) * 100).toFixed(1)} % | \`${name}\` |`)
}
