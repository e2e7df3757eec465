import { ClassicLevel } from 'classic-level'
import { openEngine } from '../../core/engine.js'
import { openEmbeddedEngine } from '../../adapters/leveldb/embeddedEngine.js'
import { now, reportToParent } from '../util.js'

/**
 * One start-up measurement of bench/scaling/startup.ts, in a fresh process:
 *
 *   node dist/bench/scaling/startupChild.js raw <log dir>             reads every record of the LevelDB log (keys and values)
 *   node dist/bench/scaling/startupChild.js engine <home> <docId>     openEngine, then loads one document (snapshot + tail)
 *
 * Times are from this process's own start (performance.now()), so they include loading the modules.
 */

export interface StartupSample {
  readonly mode: 'raw' | 'engine'
  /** raw: time to read every record; engine: openEngine. */
  readonly openMs: number
  /** engine: documents.get + .content of one document; raw: 0. */
  readonly loadMs: number
  /** From this process's start to the end of the work. */
  readonly sinceStartMs: number
  readonly records: number
  readonly bytes: number
}

const [mode, path, docId] = process.argv.slice(2)
if (mode === 'raw' && path) {
  const started = now()
  const db = new ClassicLevel<Uint8Array, Uint8Array>(path, { keyEncoding: 'view', valueEncoding: 'view' })
  await db.open()
  let records = 0
  let bytes = 0
  for await (const [key, value] of db.iterator()) {
    records++
    bytes += key.length + value.length
  }
  await db.close()
  const done = now()
  reportToParent({ mode, openMs: done - started, loadMs: 0, sinceStartMs: done, records, bytes } satisfies StartupSample)
} else if (mode === 'engine' && path && docId) {
  const started = now()
  const engine = await openEmbeddedEngine(path)
  const opened = now()
  const document = await engine.documents.get(docId)
  if (!document) throw new Error(`no document ${docId} in ${path}`)
  const length = document.content.length
  const loaded = now()
  const head = engine.store.headPosition
  await engine.close()
  reportToParent({ mode, openMs: opened - started, loadMs: loaded - opened, sinceStartMs: loaded, records: head, bytes: length } satisfies StartupSample)
} else {
  throw new Error('usage: startupChild.js raw <log dir> | engine <home> <docId>')
}
