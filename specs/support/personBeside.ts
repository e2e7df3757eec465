import { afterAll, afterEach, beforeAll } from 'vitest'
import { USER } from '../../core/events/actor.js'
import { openWorkspaceAsPerson } from '../../core/workspace/commands.js'
import type { Peer } from './collabPeers.js'
import { startCollabServer, type CollabServer } from './collabServer.js'
import { folder, removeAll } from './conformance.js'
import { connectHttp, type Session } from './mcpHarness.js'

/** A daemon's collaboration server with an assistant's HTTP session and room for the person's y-websocket peers. */
export interface PersonBeside {
  readonly server: CollabServer
  readonly session: Session
  /** The workspace folder the person opened, holding `files`. */
  readonly workspace: string
  /** The person's peers: each destroyed after its test. */
  readonly peers: Peer[]
}

/**
 * For a describe block where an assistant and a person work on one workspace: the server, the workspace (opened by
 * the person) and the assistant's session are made before the block's tests and closed after them.
 */
export function usePersonBeside(name: string, files: Record<string, string>): PersonBeside {
  const rig = { peers: [] as Peer[] } as { server: CollabServer; session: Session; workspace: string; peers: Peer[] }
  beforeAll(async () => {
    rig.workspace = await folder(name, files)
    rig.server = await startCollabServer()
    await openWorkspaceAsPerson(rig.server.quire.services.engine.store, rig.server.quire.services.engine.views.workspace, rig.workspace, USER)
    rig.session = await connectHttp(rig.server.port, rig.server.token)
  })
  afterEach(() => {
    for (const each of rig.peers.splice(0)) each.destroy()
  })
  afterAll(async () => {
    await rig.session?.close()
    await rig.server?.close()
    await removeAll(rig.workspace)
  })
  return rig
}
