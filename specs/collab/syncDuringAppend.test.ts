import { mkdtemp, rm } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { setTimeout as sleep } from 'node:timers/promises'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import * as Y from 'yjs'
import { startCollabServer, type CollabServer } from '../support/collabServer.js'
import { peer, until } from '../support/collabPeers.js'
import { gatedLog, type GatedLog } from '../support/gatedLog.js'

/**
 * A peer that joins while another peer's keystroke is applied to the document but not yet appended (its append held
 * at a gate, as a shared log holds it while it waits for the writer lease): the joiner's catch-up (SyncStep2) is of
 * the document as the log has it, sent once that is durable, so the keystroke reaches it only through the log.
 */
describe('a peer joining while a keystroke waits for its append', () => {
  let server: CollabServer
  let logDir: string
  let log: GatedLog

  beforeAll(async () => {
    logDir = await mkdtemp(join(tmpdir(), 'quire-sync-during-append-'))
    log = gatedLog(logDir)
    server = await startCollabServer({}, { openLog: log.openLog })
  })
  afterAll(async () => {
    await server?.close()
    await rm(logDir, { recursive: true, force: true })
  })

  it('is sent the document without the keystroke until its append is made and durable, then gets it', async () => {
    const docId = await server.createDocument('base\n')
    const state = (await server.quire.services.engine.documents.get(docId))!
    const typist = new Y.Doc()
    Y.applyUpdate(typist, Y.encodeStateAsUpdate(state.ydoc))
    const from = Y.encodeStateVector(typist)
    typist.getText('source').insert(0, 'held ')
    const keystroke = Y.encodeStateAsUpdate(typist, from)

    const release = log.hold()
    const typing = server.quire.services.engine.commands.documents.applyPeerUpdates(docId, [keystroke], { kind: 'peer', peer: 'typist' })
    await until('the keystroke to wait at the gate', () => log.waiting > 0)
    expect(state.content).toBe('held base\n')

    const joiner = peer(server.port, docId, { token: server.token })
    try {
      // Time for a catch-up computed from the state as it is to arrive.
      await sleep(300)
      expect(joiner.text.toString()).not.toContain('held')
      release()
      await (await typing).durable
      await until('the joiner to get the keystroke', () => joiner.text.toString() === 'held base\n')
    } finally {
      release()
      joiner.destroy()
      typist.destroy()
    }
  })
})
