import { readFile } from 'node:fs/promises'
import { setFlagsFromString } from 'node:v8'
import { runInNewContext } from 'node:vm'
import * as Y from 'yjs'
import { openEmbeddedEngine } from '../../adapters/leveldb/embeddedEngine.js'
import { MarkdownText } from '../mcpSupport.js'
import { reportToParent } from '../util.js'

/**
 * One point of bench/scaling/idleMemory.ts, in a fresh process: memory before and after holding `count` idle
 * documents, each of the text `new MarkdownText(bytes, seed + index)`.
 *
 *   node dist/bench/scaling/idleMemoryChild.js engine <home> <docIds.json> <count>   documents.get of the first count
 *   node dist/bench/scaling/idleMemoryChild.js plain <bytes> <seed> <count>          count plain Y.Docs of the same texts
 *
 * The engine's documents are loaded from their snapshots, as after a restart; they stay in its repository, idle.
 */

export interface IdleMemorySample {
  readonly mode: 'engine' | 'plain'
  readonly count: number
  /** heapUsed + external (array buffers included) after a full GC, before and after, in bytes. */
  readonly heapBefore: number
  readonly heapAfter: number
  readonly rssBefore: number
  readonly rssAfter: number
  readonly characters: number
}

// A full collection before each figure, so garbage does not count as held memory.
setFlagsFromString('--expose-gc')
const gc = runInNewContext('gc') as () => void

function measure(): { heap: number; rss: number } {
  gc()
  gc()
  const usage = process.memoryUsage()
  return { heap: usage.heapUsed + usage.external, rss: usage.rss }
}

const [mode, a, b, c] = process.argv.slice(2)
const held: unknown[] = []
let characters = 0
let before: { heap: number; rss: number }
if (mode === 'engine' && a && b && c) {
  const ids = (JSON.parse(await readFile(b, 'utf8')) as string[]).slice(0, Number(c))
  const engine = await openEmbeddedEngine(a)
  // One document first, so the code paths of loading are compiled and their caches allocated before the baseline.
  await engine.documents.get(ids[0]!)
  engine.documents.evict(ids[0]!)
  before = measure()
  for (const id of ids) {
    const document = await engine.documents.get(id)
    if (!document) throw new Error(`no document ${id}`)
    characters += document.content.length
  }
  const after = measure()
  // Closed only now: an engine nothing refers to any more would be collected with its documents by the last GC.
  await engine.close()
  reportToParent({ mode, count: ids.length, heapBefore: before.heap, heapAfter: after.heap, rssBefore: before.rss, rssAfter: after.rss, characters } satisfies IdleMemorySample)
} else if (mode === 'plain' && a && b && c) {
  const [bytes, seed, count] = [Number(a), Number(b), Number(c)]
  const warm = new Y.Doc()
  warm.getText('source').insert(0, new MarkdownText(bytes, seed).text)
  warm.destroy()
  before = measure()
  for (let index = 0; index < count; index++) {
    const doc = new Y.Doc()
    doc.getText('source').insert(0, new MarkdownText(bytes, seed + index).text)
    characters += doc.getText('source').length
    held.push(doc)
  }
  const after = measure()
  reportToParent({ mode, count, heapBefore: before.heap, heapAfter: after.heap, rssBefore: before.rss, rssAfter: after.rss, characters } satisfies IdleMemorySample)
} else {
  throw new Error('usage: idleMemoryChild.js engine <home> <docIds.json> <count> | plain <bytes> <seed> <count>')
}
