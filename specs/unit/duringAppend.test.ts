import { mkdir, mkdtemp, readFile, realpath, rm, writeFile } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterEach, beforeEach, describe, expect, it } from 'vitest'
import * as Y from 'yjs'
import { openQuire, type Quire } from '../../adapters/host/quire.js'
import { replayDocument } from '../../core/audit/replay.js'
import { DocumentSaved } from '../../core/documents/events.js'
import { USER } from '../../core/events/actor.js'
import { dataOf } from '../../core/events/schema.js'
import { openWorkspaceAsPerson, type Caller } from '../../core/workspace/commands.js'
import { gatedLog, type GatedLog } from '../support/gatedLog.js'
import { sessionView } from '../../projections/session/sessionView.js'

const PERSON: Caller = { actor: USER, connection: 'person', principal: null }

/**
 * A change is applied to a document's state before its append is made (a write's or a reload's Yjs transaction, a
 * peer's update), and folded once the log has given it its position. On a shared log the append waits for the writer
 * lease (a round trip to PostgreSQL). A read in between found the new text beside the old revision, a pair that is
 * nowhere in the log: a conformance run on PostgreSQL caught it once (disk.test: "edited elsewhere" at the revision of
 * "first"). A save in between wrote that text to the file and recorded it as the old revision. Here the log's append
 * is held at a gate (specs/support/gatedLog.ts) while a person's keystroke waits for it.
 */
describe('while a keystroke waits for its append', () => {
  let base: string
  let quire: Quire
  let log: GatedLog
  let file: string

  beforeEach(async () => {
    base = await realpath(await mkdtemp(join(tmpdir(), 'quire-during-append-')))
    await mkdir(join(base, 'ws'))
    file = join(base, 'ws', 'notes.md')
    await writeFile(file, 'first\n')
    log = gatedLog(join(base, 'log'))
    quire = await openQuire(join(base, 'home'), { watchDisk: false, openLog: log.openLog })
    await openWorkspaceAsPerson(quire.services.engine.store, quire.services.engine.views.workspace, join(base, 'ws'), USER)
  })
  afterEach(async () => {
    await quire.close()
    await rm(base, { recursive: true, force: true })
  })

  /**
   * A person's keystroke (by default "typed " at the start), applied to the document at once; its append waits at
   * the gate until `release`.
   */
  async function heldKeystroke(
    docId: string,
    edit: (text: Y.Text) => void = (text) => text.insert(0, 'typed '),
  ): Promise<{ release: (failing?: (stream: string) => boolean) => void; typed: Promise<void> }> {
    const { engine } = quire.services
    const typist = new Y.Doc()
    Y.applyUpdate(typist, Y.encodeStateAsUpdate((await engine.documents.get(docId))!.ydoc))
    const from = Y.encodeStateVector(typist)
    edit(typist.getText('source'))
    const keystroke = Y.encodeStateAsUpdate(typist, from)
    const typedText = typist.getText('source').toString()
    typist.destroy()
    const release = log.hold()
    const typed = engine.commands.documents.applyPeerUpdates(docId, [keystroke], { kind: 'peer', peer: 'console' }).then((outcome) => outcome.durable)
    while (log.waiting === 0) await new Promise((resolve) => setTimeout(resolve, 1))
    expect((await engine.documents.get(docId))!.content).toBe(typedText)
    return { release, typed }
  }

  /** Time enough for a call that does not wait for the keystroke's step to answer from the state as it is. */
  const settle = () => new Promise((resolve) => setTimeout(resolve, 50))

  it('DOC.READ.1 DOC.READ.3 document.read answers text and revision of one state, which the log replays to exactly that text', async () => {
    const { services } = quire
    const { tabId } = await services.files.open(file, undefined, PERSON)
    const docId = services.engine.views.workspace.state.tabs.get(tabId)!.docId
    const before = await services.files.read(tabId)

    const { release, typed } = await heldKeystroke(docId)
    const reading = services.files.read(tabId)
    await settle()
    release()
    const read = await reading
    await typed

    // Either the pair before the keystroke or the pair after it; never the new text at the old revision.
    expect(read.revision === before.revision, `read ${JSON.stringify(read)} after ${JSON.stringify(before)}`).toBe(read.content === before.content)
    expect(await replayDocument(services.engine, docId, read.revision)).toBe(read.content)
  })

  it('SAVE.1 a save writes the file and records it at one revision: the log replays that revision to exactly what the file holds', async () => {
    const { services } = quire
    const { tabId } = await services.files.open(file, undefined, PERSON)
    const docId = services.engine.views.workspace.state.tabs.get(tabId)!.docId

    const { release, typed } = await heldKeystroke(docId)
    const saving = services.files.save(tabId, PERSON)
    await settle()
    release()
    const saved = await saving
    await typed

    const onDisk = await readFile(file, 'utf8')
    expect(await replayDocument(services.engine, docId, saved.revision)).toBe(onDisk)
    let recorded: string | null | undefined
    for await (const event of services.engine.store.readStream(`doc:${docId}`)) if (event.type === DocumentSaved.type) recorded = dataOf(event, DocumentSaved).revision
    expect(recorded).toBe(saved.revision)
  })

  it('SES.GET_STATE.5 session.get_state shows a tab dirty or clean as of the revision it shows', async () => {
    const { services } = quire
    const { tabId } = await services.files.open(file, undefined, PERSON)
    const docId = services.engine.views.workspace.state.tabs.get(tabId)!.docId
    const tabOf = async () => (await sessionView(services.engine)).windows.flatMap((window) => window.tabs).find((tab) => tab.tabId === tabId)!
    await services.engine.commands.documents.write({ docId, content: 'first\nsecond\n', actor: USER })
    const edited = await tabOf()
    expect(edited.dirty).toBe(true)

    // The person deletes the line again: the text is what the file holds once more.
    const { release, typed } = await heldKeystroke(docId, (text) => text.delete('first\n'.length, 'second\n'.length))
    const viewing = tabOf()
    await settle()
    release()
    const seen = await viewing
    await typed

    // Dirty at the edit's revision, or clean at the keystroke's; clean at the edit's revision is neither.
    expect(seen.dirty, JSON.stringify(seen)).toBe(seen.revision === edited.revision)
  })

  it('COM.LIST.3 a comment made while a keystroke waits is anchored to text the log holds: when that append fails, the comment still quotes the document', async () => {
    const { services } = quire
    const { tabId } = await services.files.open(file, undefined, PERSON)
    const docId = services.engine.views.workspace.state.tabs.get(tabId)!.docId

    const { release, typed } = await heldKeystroke(docId)
    const failed = typed.then(() => undefined, (error: unknown) => error)
    const commenting = services.engine.commands.comments.create(docId, { from: 0, to: 5 }, 'a note', USER)
    await settle()
    release((stream) => stream === `doc:${docId}`)
    const { comment } = await commenting
    expect(await failed).toMatchObject({ code: 'JOURNAL_UNAVAILABLE' })

    // The keystroke never reached the log, so the document is "first" again; the comment was made on that text.
    expect((await services.engine.documents.get(docId))!.content).toBe('first\n')
    const [thread] = (await services.engine.commands.comments.list(docId)).threads
    expect(thread, JSON.stringify(thread)).toMatchObject({ comment, quote: 'first' })
    expect(thread).not.toHaveProperty('anchorLost')
  })
})
