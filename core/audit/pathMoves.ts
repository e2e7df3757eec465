import type { EventLog } from '../log/eventLog.js'
import { dataOf } from '../events/schema.js'
import { DocumentRetargeted, TabOpened, WORKSPACE_STREAM } from '../workspace/events.js'

export interface PathMoves {
  /** Each document's file now, as its tabs show it. */
  readonly pathNow: ReadonlyMap<string, string>
  /** The documents that had one of the paths asked about and have another now, the one that left last first. */
  readonly leftBy: readonly string[]
}

/**
 * Where documents went from the paths asked about, folded from the workspace stream: a tab opened on a file gives its
 * document that path, and `document.retargeted` (a save elsewhere, a rename of the file or of a folder holding it)
 * moves the document to its new path. The live workspace view keeps only the paths held now.
 */
export async function pathMoves(store: Pick<EventLog, 'readStream'>, asked: ReadonlySet<string>): Promise<PathMoves> {
  const pathNow = new Map<string, string>()
  const left = new Map<string, number>()
  for await (const event of store.readStream(WORKSPACE_STREAM)) {
    if (event.type === TabOpened.type) {
      const { docId, path } = dataOf(event, TabOpened)
      if (path !== null) pathNow.set(docId, path)
    } else if (event.type === DocumentRetargeted.type) {
      const { docId, path } = dataOf(event, DocumentRetargeted)
      const before = pathNow.get(docId)
      if (before !== undefined && asked.has(before) && !asked.has(path)) left.set(docId, event.position)
      pathNow.set(docId, path)
    }
  }
  const leftBy = [...left]
    .filter(([docId]) => !asked.has(pathNow.get(docId)!))
    .sort(([, a], [, b]) => b - a)
    .map(([docId]) => docId)
  return { pathNow, leftBy }
}
