import type { Engine } from '../../core/engine.js'
import { openEmbeddedEngine, type EmbeddedEngineOptions } from '../../adapters/leveldb/embeddedEngine.js'
import { USER } from '../../core/events/actor.js'

/** Opens an engine in `home`, runs `body`, and always closes it. */
export async function withEngine<T>(home: string, body: (engine: Engine) => Promise<T>, options?: EmbeddedEngineOptions): Promise<T> {
  const engine = await openEmbeddedEngine(home, options)
  try {
    return await body(engine)
  } finally {
    await engine.close()
  }
}

export async function createDoc(engine: Engine, content = ''): Promise<string> {
  const { docId } = await engine.commands.documents.create({
    kind: 'markdown', content, path: null, title: 'test', origin: 'untitled', actor: USER,
  })
  return docId
}
