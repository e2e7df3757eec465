/**
 * AI changes and their review (DESIGN §11), on the engine: each assistant write is a change with hunks anchored by
 * Yjs ids; the person keeps or undoes a change or one hunk, redoes an undo, or undoes one assistant's pending changes
 * at once. Undo removes only what the change inserted (never a character someone else typed inside it) and puts back
 * what it deleted; rebuilt from the log, the document is the same.
 */
import { describe, expect, it } from 'vitest'
import * as Y from 'yjs'
import type { Engine } from '../../core/engine.js'
import { openEmbeddedEngine } from '../../adapters/leveldb/embeddedEngine.js'
import { USER, type Actor } from '../../core/events/actor.js'
import { isQuireError } from '../../core/errors.js'
import { compareDocuments } from '../../core/audit/verify.js'
import { DocumentState } from '../../core/documents/documentState.js'
import { useTempHomes } from '../support/tempHome.js'
import { personTypes as typeAsPerson } from '../support/personTypes.js'

const newHome = useTempHomes()
const CLAUDE: Actor = { kind: 'mcp', principal: 'claude', connection: 'c-1' }
const CODEX: Actor = { kind: 'mcp', principal: 'codex', connection: 'c-2' }
const WRITER = { tabId: 't-1', windowLabel: 'main' }

async function withEngine(test: (engine: Engine) => Promise<void>): Promise<void> {
  const engine = await openEmbeddedEngine(await newHome())
  try {
    await test(engine)
  } finally {
    await engine.close()
  }
}

/** The person types (a peer's update, as the console sends it), and the keystroke is in the log. */
const personTypes = (engine: Engine, docId: string, edit: (text: Y.Text) => void) => typeAsPerson(engine, docId, edit, 'console')

async function text(engine: Engine, docId: string): Promise<string> {
  return (await engine.documents.get(docId))!.content
}

/** The live document equals one rebuilt from the log alone. */
async function rebuildsTheSame(engine: Engine, docId: string): Promise<void> {
  const rebuilt = (await engine.documents.rebuild(docId))!
  try {
    expect(compareDocuments(await engine.documents.get(docId), rebuilt)).toEqual([])
    expect(rebuilt.aiChanges()).toEqual((await engine.documents.get(docId))!.aiChanges())
  } finally {
    rebuilt.destroy()
  }
}

async function write(engine: Engine, docId: string, content: string, actor: Actor = CLAUDE): Promise<void> {
  await engine.commands.documents.write({ docId, content, actor, writer: WRITER, fromTabBase: true })
}

describe('AI changes', () => {
  it('each assistant write is a change with its hunks; a person\'s restore is one too, reviewed already', () =>
    withEngine(async (engine) => {
      const { docId } = await engine.commands.documents.create({ kind: 'markdown', content: 'alpha beta gamma\n', path: null, title: 't', origin: 'untitled', actor: USER })
      await write(engine, docId, 'alpha BETA gamma delta\n')
      const [change] = await engine.commands.review.list(docId)
      expect(change).toMatchObject({ by: 'assistant', agent: 'claude', connection: 'c-1', state: 'pending', inserted: 10, deleted: 4 })
      expect(change!.hunks.map(({ inserted, deleted }) => ({ inserted, deleted }))).toEqual([
        { inserted: 'BETA', deleted: 'beta' },
        { inserted: ' delta', deleted: '' },
      ])
      expect(await engine.commands.review.unreviewed(docId)).toBe(1)
      await rebuildsTheSame(engine, docId)
    }))

  it('undo of change 2 of three removes its characters but the person\'s typed inside, puts back what it deleted, and keeps changes 1 and 3; redo brings it back', () =>
    withEngine(async (engine) => {
      const { docId } = await engine.commands.documents.create({ kind: 'markdown', content: 'one\ntwo\nthree\n', path: null, title: 't', origin: 'untitled', actor: USER })
      await write(engine, docId, 'ONE\ntwo\nthree\n')
      await write(engine, docId, 'ONE\nsecond line by the assistant\nthree\n')
      await write(engine, docId, 'ONE\nsecond line by the assistant\nthree\nfour\n', CODEX)
      const changes = await engine.commands.review.list(docId)
      expect(changes).toHaveLength(3)
      // The person types inside change 2's insertion, before it and after it.
      await personTypes(engine, docId, (source) => {
        const at = source.toString().indexOf('line by')
        source.insert(at, 'typed-inside ')
        source.insert(0, '# Title\n')
        source.insert(source.length, 'the end\n')
      })
      expect(await text(engine, docId)).toBe('# Title\nONE\nsecond typed-inside line by the assistant\nthree\nfour\nthe end\n')
      const undone = await engine.commands.review.undo(docId, changes[1]!.id, undefined, USER)
      expect(undone.skipped).toEqual([])
      expect(await text(engine, docId)).toBe('# Title\nONE\ntwotyped-inside \nthree\nfour\nthe end\n')
      expect((await engine.commands.review.list(docId)).map((change) => change.state)).toEqual(['pending', 'undone', 'pending'])
      expect(await engine.commands.review.unreviewed(docId)).toBe(2)
      await rebuildsTheSame(engine, docId)

      await engine.commands.review.redo(docId, changes[1]!.id, undefined, USER)
      expect(await text(engine, docId)).toBe('# Title\nONE\nsecond typed-inside line by the assistant\nthree\nfour\nthe end\n')
      expect((await engine.commands.review.list(docId))[1]!.state).toBe('pending')
      // Undone again, after the redo: the redo's characters go, as the change's did.
      await engine.commands.review.undo(docId, changes[1]!.id, undefined, USER)
      expect(await text(engine, docId)).toBe('# Title\nONE\ntwotyped-inside \nthree\nfour\nthe end\n')
      await rebuildsTheSame(engine, docId)
    }))

  it('undo of one hunk only; keep of the other; the backlog counts changes with a pending hunk', () =>
    withEngine(async (engine) => {
      const { docId } = await engine.commands.documents.create({ kind: 'markdown', content: 'alpha beta gamma\n', path: null, title: 't', origin: 'untitled', actor: USER })
      await write(engine, docId, 'alpha BETA gamma delta\n')
      const [change] = await engine.commands.review.list(docId)
      await engine.commands.review.undo(docId, change!.id, [1], USER)
      expect(await text(engine, docId)).toBe('alpha BETA gamma\n')
      expect(await engine.commands.review.unreviewed(docId)).toBe(1)
      await engine.commands.review.keep(docId, change!.id, [0], USER)
      expect(await engine.commands.review.unreviewed(docId)).toBe(0)
      expect((await engine.commands.review.list(docId))[0]!.state).toBe('mixed')
      await expect(engine.commands.review.keep(docId, change!.id, [0], USER)).rejects.toSatisfy((error) => isQuireError(error, 'INVALID_ARGUMENT'))
      await expect(engine.commands.review.undo(docId, change!.id, [7], USER)).rejects.toSatisfy((error) => isQuireError(error, 'INVALID_ARGUMENT'))
      await expect(engine.commands.review.undo(docId, 'ch-zz', undefined, USER)).rejects.toSatisfy((error) => isQuireError(error, 'NOT_FOUND'))
      await rebuildsTheSame(engine, docId)
    }))

  it('undo of an assistant\'s session: its pending changes since a revision, in one step; the other assistant\'s stay', () =>
    withEngine(async (engine) => {
      const { docId } = await engine.commands.documents.create({ kind: 'markdown', content: 'a\n', path: null, title: 't', origin: 'untitled', actor: USER })
      await write(engine, docId, 'a\nb\n')
      const since = (await engine.documents.get(docId))!.revision
      await write(engine, docId, 'a\nb\nc\n', CODEX)
      await write(engine, docId, 'a\nb\nc\nd\n')
      await write(engine, docId, 'a\nb\nc\nd\ne\n')
      const head = engine.store.headPosition
      const outcome = await engine.commands.review.undoBy(docId, { principal: 'claude', since }, USER)
      expect(outcome.changes.map((change) => change.undone)).toEqual([[0], [0]])
      expect(await text(engine, docId)).toBe('a\nb\nc\n')
      // One append: the two undo records and one content change (no bridge: no mirror).
      expect(engine.store.headPosition - head).toBe(3)
      await rebuildsTheSame(engine, docId)
    }))

  it('a hunk whose surroundings were deleted since is left, and said so', () =>
    withEngine(async (engine) => {
      const { docId } = await engine.commands.documents.create({ kind: 'markdown', content: 'keep\nold words here\nkeep\n', path: null, title: 't', origin: 'untitled', actor: USER })
      await write(engine, docId, 'keep\nold here\nkeep\n')
      const [change] = await engine.commands.review.list(docId)
      await personTypes(engine, docId, (source) => source.delete(source.toString().indexOf('old'), 'old here\n'.length))
      const outcome = await engine.commands.review.undo(docId, change!.id, undefined, USER)
      expect(outcome.done).toEqual([])
      expect(outcome.skipped).toMatchObject([{ index: 0 }])
      expect(await text(engine, docId)).toBe('keep\nkeep\n')
    }))

  it('where the AI changes last moved: a change and each review move it, the person\'s typing does not; a snapshot keeps it', () =>
    withEngine(async (engine) => {
      const { docId } = await engine.commands.documents.create({ kind: 'markdown', content: 'alpha beta\n', path: null, title: 't', origin: 'untitled', actor: USER })
      const at = async () => (await engine.documents.get(docId))!.changesPosition
      expect(await at()).toBe(0)
      await write(engine, docId, 'alpha BETA\n')
      const afterWrite = await at()
      expect(afterWrite).toBeGreaterThan(0)
      await personTypes(engine, docId, (source) => source.insert(0, 'typed '))
      expect(await at()).toBe(afterWrite)
      const [change] = await engine.commands.review.list(docId)
      await engine.commands.review.undo(docId, change!.id, undefined, USER)
      const afterUndo = await at()
      expect(afterUndo).toBeGreaterThan(afterWrite)
      await engine.commands.review.redo(docId, change!.id, undefined, USER)
      const afterRedo = await at()
      expect(afterRedo).toBeGreaterThan(afterUndo)
      await engine.commands.review.keep(docId, change!.id, undefined, USER)
      expect(await at()).toBeGreaterThan(afterRedo)
      const state = (await engine.documents.get(docId))!
      const restored = DocumentState.fromSnapshot(docId, state.encodeSnapshot())
      expect(restored.changesPosition).toBe(state.changesPosition)
      restored.destroy()
      await rebuildsTheSame(engine, docId)
      const rebuilt = (await engine.documents.rebuild(docId))!
      expect(rebuilt.changesPosition).toBe(state.changesPosition)
      rebuilt.destroy()
    }))
})
