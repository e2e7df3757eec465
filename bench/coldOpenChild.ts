import { readFile } from 'node:fs/promises'
import * as Y from 'yjs'
import { openEngine } from '../core/engine.js'
import { openEmbeddedEngine } from '../adapters/leveldb/embeddedEngine.js'
import { now, reportToParent } from './util.js'

/**
 * One cold open, in a fresh process (started by coldOpen.ts): opens the engine and loads a document from its
 * snapshot, and decodes the same document's Yjs state into a plain Y.Doc, in the order the parent says.
 *
 *   node dist/bench/coldOpenChild.js <home> <docId> <state file> <engine-first|yjs-first>
 */

export interface ColdOpenSample {
  readonly order: 'engine-first' | 'yjs-first'
  /** `openEngine`: opening the LevelDB and the store (the log's head, quarantine notes). */
  readonly openMs: number
  /** `documents.get(docId)` plus reading `.content`. */
  readonly getMs: number
  /** `Y.applyUpdate(new Y.Doc(), state)` plus `getText('source').toString()`. */
  readonly yjsMs: number
  readonly contentLength: number
  readonly sameContent: boolean
}

const [home, docId, statePath, order] = process.argv.slice(2)
if (!home || !docId || !statePath || (order !== 'engine-first' && order !== 'yjs-first')) {
  throw new Error('usage: coldOpenChild.js <home> <docId> <state file> <engine-first|yjs-first>')
}
const state = new Uint8Array(await readFile(statePath))

async function engineSide(): Promise<{ openMs: number; getMs: number; content: string }> {
  const started = now()
  const engine = await openEmbeddedEngine(home!)
  const opened = now()
  const document = await engine.documents.get(docId!)
  if (!document) throw new Error(`no document ${docId} in ${home}`)
  const content = document.content
  const loaded = now()
  await engine.close()
  return { openMs: opened - started, getMs: loaded - opened, content }
}

function yjsSide(): { yjsMs: number; content: string } {
  const started = now()
  const doc = new Y.Doc()
  Y.applyUpdate(doc, state)
  const content = doc.getText('source').toString()
  const yjsMs = now() - started
  doc.destroy()
  return { yjsMs, content }
}

let engine: Awaited<ReturnType<typeof engineSide>>
let yjs: ReturnType<typeof yjsSide>
if (order === 'engine-first') {
  engine = await engineSide()
  yjs = yjsSide()
} else {
  yjs = yjsSide()
  engine = await engineSide()
}
reportToParent({
  order,
  openMs: engine.openMs,
  getMs: engine.getMs,
  yjsMs: yjs.yjsMs,
  contentLength: engine.content.length,
  sameContent: engine.content === yjs.content,
} satisfies ColdOpenSample)
