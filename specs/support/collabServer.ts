import { rm } from 'node:fs/promises'
import { USER } from '../../core/events/actor.js'
import type { CollabLimits } from '../../adapters/collab/limits.js'
import type { KeystrokePolicy } from '../../adapters/collab/keystrokes.js'
import { startHttpServer, type HttpServer } from '../../adapters/http/daemon.js'
import { openQuire, type Quire, type QuireOptions } from '../../adapters/host/quire.js'
import { tempDir } from './mcpHarness.js'

/**
 * The daemon's HTTP server (MCP, admin, collaboration) in this process, for specs that need what a child process
 * hides: the presence registry, the live documents, or limits shrunk to test sizes.
 */
export interface CollabServer {
  readonly quire: Quire
  readonly http: HttpServer
  readonly port: number
  /** The port file's token: the person. */
  readonly token: string
  /** A new document holding `content`, by the person; its id. */
  createDocument(content?: string): Promise<string>
  /** The live text of a document. */
  text(docId: string): Promise<string>
  close(): Promise<void>
}

export async function startCollabServer(limits: Partial<CollabLimits> = {}, options: QuireOptions = {}, keystrokes?: KeystrokePolicy): Promise<CollabServer> {
  const home = await tempDir('quire-collab-')
  const quire = await openQuire(home, { watchDisk: false, ...options })
  const http = await startHttpServer(quire.services, { collab: { limits, ...(keystrokes ? { keystrokes } : {}) } })
  const { engine } = quire.services
  return {
    quire,
    http,
    port: http.port,
    token: http.token,
    async createDocument(content = '') {
      const { docId } = await engine.commands.documents.create({ kind: 'markdown', content, path: null, title: 'collab', origin: 'untitled', actor: USER })
      return docId
    },
    async text(docId) {
      const state = await engine.documents.get(docId)
      if (!state) throw new Error(`no document ${docId}`)
      return state.content
    },
    async close() {
      await http.close()
      await quire.close()
      await rm(home, { recursive: true, force: true })
    },
  }
}
