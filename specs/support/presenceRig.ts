import { mkdir, writeFile } from 'node:fs/promises'
import { join } from 'node:path'
import { expect } from 'vitest'
import { startHttpServer, type HttpServer } from '../../adapters/http/daemon.js'
import { PERSON } from './conformance.js'
import { editorPeer, type EditorPeer } from './editorPeer.js'
import { docOfTab, eventually, launchFaulty, LogStall, openTab, within, type FaultySession } from './faultSession.js'

/**
 * The core with its MCP surface in-process (so the log can be stalled) and its HTTP side listening (so real
 * y-websocket peers can attach as editors), with one file open in a tab.
 */
export interface PresenceRig {
  readonly session: FaultySession
  readonly http: HttpServer
  readonly stall: LogStall
  readonly tabId: string
  readonly docId: string
  readonly file: string
  /** A peer showing `tabId` (by default), synced, whose presence the server has seen. */
  attach(initial?: Parameters<typeof editorPeer>[3]): Promise<EditorPeer>
  /** Waits until the server holds exactly the selection `peer` published last. */
  caughtUp(peer: EditorPeer): Promise<boolean>
  /** Waits until the server's view of the tab's editors satisfies `check`. */
  seen(check: (editor: Record<string, unknown>) => boolean): Promise<boolean>
  close(): Promise<void>
}

export async function presenceRig(folder: string, text = 'hello world\n', name = 'doc.md'): Promise<PresenceRig> {
  await mkdir(folder, { recursive: true })
  const file = join(folder, name)
  await writeFile(file, text)
  const stall = new LogStall()
  const session = await launchFaulty({ workspaces: [folder], stall })
  const http = await startHttpServer(session.quire.services)
  const tabId = await openTab(session, file)
  // MCP opens into a background tab (WS.OPEN.1); the person brings it to the front in the console.
  await session.quire.services.workspace.switchTab(tabId, PERSON)
  const docId = docOfTab(session.quire, tabId)
  const peers: EditorPeer[] = []
  const seen = (check: (editor: Record<string, unknown>) => boolean) =>
    eventually(() => session.quire.services.presence.forTab(tabId).some((editor) => check(editor as unknown as Record<string, unknown>)))
  return {
    session, http, stall, tabId, docId, file, seen,
    caughtUp: (peer) => seen((editor) => JSON.stringify(editor.selection) === JSON.stringify(peer.state.selection)),
    async attach(initial = { tabId }) {
      const peer = editorPeer(http.url, http.token, docId, initial)
      peers.push(peer)
      await within(10_000, 'the peer to sync', peer.synced())
      expect(await eventually(() => session.quire.services.presence.forTab(initial.tabId).length > 0)).toBe(true)
      return peer
    },
    async close() {
      for (const peer of peers) peer.close()
      await http.close()
      await session.close()
    },
  }
}
