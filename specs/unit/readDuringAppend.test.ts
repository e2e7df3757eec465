import { mkdtemp, rm } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterEach, beforeEach, describe, expect, it } from 'vitest'
import * as Y from 'yjs'
import { replayDocument } from '../../core/audit/replay.js'
import { openEngine, type Engine } from '../../core/engine.js'
import { USER } from '../../core/events/actor.js'
import type { Caller } from '../../core/workspace/commands.js'
import { gatedLog, type GatedLog } from '../support/gatedLog.js'

const PERSON: Caller = { actor: USER, connection: 'person', principal: null }

/**
 * A change is applied to a document's state before its append is made (a write's or a reload's Yjs transaction, a
 * peer's update), and folded once the log has given it its position. On a shared log the append waits for the writer
 * lease (a round trip to PostgreSQL), so a read in between found the new text beside the old revision: a pair that is
 * nowhere in the log, which a conformance run on PostgreSQL caught once (disk.test: "edited elsewhere" at the revision
 * of "first"). Here the log's append is held at a gate (specs/support/gatedLog.ts).
 */
describe('a read while a change waits for its append', () => {
  let home: string
  let engine: Engine
  let log: GatedLog

  beforeEach(async () => {
    home = await mkdtemp(join(tmpdir(), 'quire-read-during-append-'))
    log = gatedLog(join(home, 'log'))
    engine = await openEngine(home, { openLog: log.openLog })
  })
  afterEach(async () => {
    await engine.close()
    await rm(home, { recursive: true, force: true })
  })

  it('DOC.READ.1 DOC.READ.3 document.read answers text and revision of one state, which the log replays to exactly that text', async () => {
    const { tabId, docId } = await engine.commands.workspace.newTab('markdown', undefined, PERSON)
    const before = await engine.commands.files.read(tabId)
    expect(before.content).toBe('')

    // A peer types; its update is in the state at once, its append waits at the gate.
    const typist = new Y.Doc()
    Y.applyUpdate(typist, Y.encodeStateAsUpdate((await engine.documents.get(docId))!.ydoc))
    const from = Y.encodeStateVector(typist)
    typist.getText('source').insert(0, 'typed by a person')
    const keystroke = Y.encodeStateAsUpdate(typist, from)
    const release = log.hold()
    const typing = engine.commands.documents.applyPeerUpdates(docId, [keystroke], { kind: 'peer', peer: 'console' })
    while (log.waiting === 0) await new Promise((resolve) => setTimeout(resolve, 1))
    expect((await engine.documents.get(docId))!.content).toBe('typed by a person')

    const reading = engine.commands.files.read(tabId)
    // Long enough for a read that does not wait for the step to answer from the state as it is.
    await new Promise((resolve) => setTimeout(resolve, 50))
    release()
    const read = await reading
    await (await typing).durable

    // Either the pair before the keystroke or the pair after it; never the new text at the old revision.
    expect(read.revision === before.revision, `read ${JSON.stringify(read)} after ${JSON.stringify(before)}`).toBe(read.content === before.content)
    expect(await replayDocument(engine, docId, read.revision)).toBe(read.content)
    typist.destroy()
  })
})
