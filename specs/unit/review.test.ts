/**
 * The review backlog (DOC.WRITE.18) and the history the console shows: the backlog counts applied AI writes since
 * the person's last review mark, a restore is a new change shown as a restore, and the line diff of two revisions.
 */
import { describe, expect, it } from 'vitest'
import { documentTimeline, type AiWriteEntry } from '../../projections/history/history.js'
import type { Engine } from '../../core/engine.js'
import { openEmbeddedEngine } from '../../adapters/leveldb/embeddedEngine.js'
import { USER, type Actor } from '../../core/events/actor.js'
import { isQuireError } from '../../core/errors.js'
import type { RecordedEvent } from '../../core/log/eventLog.js'
import { documentStream } from '../../core/documents/events.js'
import { positionOfRevision } from '../../core/documents/revision.js'
import { ReviewCommands } from '../../core/review/commands.js'
import { restoreRevision } from '../../core/review/restore.js'
import { diffRevisions, lineDiff } from '../../core/review/revisionDiff.js'
import { SettingsCommands } from '../../core/settings/commands.js'
import { useTempHomes } from '../support/tempHome.js'

const newHome = useTempHomes()
const CLAUDE: Actor = { kind: 'mcp', principal: 'claude', connection: 'c-1' }
const CODEX: Actor = { kind: 'mcp', principal: 'codex', connection: 'c-2' }

let position = 0
function event(type: string, actor: Actor, data: unknown): RecordedEvent {
  position++
  return { position, stream: 'doc:d', streamVersion: position, type, v: 1, at: 0, actor, data }
}

async function documentWith(engine: Engine, content: string): Promise<string> {
  const { docId } = await engine.commands.documents.create({ kind: 'markdown', content, path: null, title: 'notes', origin: 'untitled', actor: USER })
  return docId
}

const review = (engine: Engine) => new ReviewCommands(engine.store, engine.documents, engine.commands.documents, engine.views.settings)

describe('the review backlog, folded with the document', () => {
  it('counts applied AI changes not yet kept or undone, and nothing else: not a restore, not a peer\'s keystroke', async () => {
    const engine = await openEmbeddedEngine(await newHome())
    try {
      const commands = review(engine)
      const docId = await documentWith(engine, 'one\n')
      await engine.commands.documents.write({ docId, content: 'one\ntwo\n', actor: CLAUDE })
      expect(await commands.unreviewed(docId)).toBe(1)
      const afterFirst = (await engine.documents.get(docId))!.revision
      // A person's own journaled change (a restore) is not an AI change.
      await restoreRevision(engine, docId, afterFirst)
      await engine.commands.documents.write({ docId, content: 'zero\none\ntwo\n', actor: USER })
      expect(await commands.unreviewed(docId)).toBe(1)
      await engine.commands.documents.write({ docId, content: 'zero\none\ntwo\nthree\n', actor: CODEX })
      expect(await commands.unreviewed(docId)).toBe(2)
      await commands.markReviewed(docId, afterFirst, USER)
      expect(await commands.unreviewed(docId)).toBe(1)
      // An older mark after a newer one changes nothing.
      expect(await commands.reviewedUpTo(docId)).toBe(positionOfRevision(afterFirst))
      await commands.markReviewed(docId, (await engine.documents.get(docId))!.revision, USER)
      expect(await commands.unreviewed(docId)).toBe(0)
      // Rebuilt from the log alone, the document counts the same.
      const rebuilt = (await engine.documents.rebuild(docId))!
      expect(rebuilt.reviewCounts()).toEqual((await engine.documents.get(docId))!.reviewCounts())
      rebuilt.destroy()
    } finally {
      await engine.close()
    }
  })
})

describe('ReviewCommands', () => {
  it('refuses at the limit with REVIEW_BACKLOG_FULL {unreviewed, limit}, and a review mark clears it', async () => {
    const engine = await openEmbeddedEngine(await newHome())
    try {
      await new SettingsCommands(engine.store, engine.views.settings).set('reviewBacklogLimit', 3, USER)
      const commands = review(engine)
      const docId = await documentWith(engine, 'a\n')
      for (let i = 1; i <= 3; i++) {
        await commands.assertBacklogNotFull(docId)
        await engine.commands.documents.write({ docId, content: `a\n${i}\n`, actor: CLAUDE })
        expect(await commands.unreviewed(docId)).toBe(i)
      }
      await expect(commands.assertBacklogNotFull(docId)).rejects.toSatisfy(
        (error) => isQuireError(error, 'REVIEW_BACKLOG_FULL') && error.details.unreviewed === 3 && error.details.limit === 3,
      )
      // A write that changes nothing is not journaled, so it is not a change to review.
      await engine.commands.documents.write({ docId, content: 'a\n3\n', actor: CLAUDE })
      expect(await commands.unreviewed(docId)).toBe(3)
      const state = (await engine.documents.get(docId))!
      await commands.markReviewed(docId, state.revision, USER)
      expect(await commands.unreviewed(docId)).toBe(0)
      await commands.assertBacklogNotFull(docId)
      // A second instance (a restarted daemon) folds the same count from the log.
      expect(await review(engine).unreviewed(docId)).toBe(0)
      await engine.commands.documents.write({ docId, content: 'b\n', actor: CODEX })
      expect(await commands.unreviewed(docId)).toBe(1)
      expect(await review(engine).unreviewed(docId)).toBe(1)
    } finally {
      await engine.close()
    }
  })

  it('keeps the backlog in the document\'s snapshot: after a restart the count is the stream\'s, read from the snapshot on', async () => {
    const home = await newHome()
    let engine = await openEmbeddedEngine(home)
    const docId = await documentWith(engine, 'a\n')
    const commands = review(engine)
    for (let i = 1; i <= 4; i++) await engine.commands.documents.write({ docId, content: `a\n${i}\n`, actor: i % 2 === 0 ? CLAUDE : CODEX })
    const second = (await engine.documents.get(docId))!.revision
    await commands.markReviewed(docId, second, USER)
    await engine.commands.documents.write({ docId, content: 'a\n5\n', actor: CLAUDE })
    await engine.commands.documents.write({ docId, content: 'a\n6\n', actor: USER })
    expect(await commands.unreviewed(docId)).toBe(1)
    await engine.close()
    engine = await openEmbeddedEngine(home)
    try {
      const reads: number[] = []
      const readStream = engine.store.readStream.bind(engine.store)
      engine.store.readStream = (stream, options) => {
        reads.push(options?.fromVersion ?? 1)
        return readStream(stream, options)
      }
      const state = (await engine.documents.get(docId))!
      reads.length = 0
      const restarted = review(engine)
      expect(await restarted.unreviewed(docId)).toBe(1)
      expect(await restarted.reviewedUpTo(docId)).toBe(positionOfRevision(second))
      // Only what lies past the document's own fold is read: nothing of the stream it already holds.
      expect(reads.every((fromVersion) => fromVersion > state.version)).toBe(true)
      // The same count as a fold of the whole stream.
      const folded = (await engine.documents.rebuild(docId))!
      expect(folded.reviewCounts()).toEqual({ unreviewed: 1, reviewedUpTo: positionOfRevision(second) })
      folded.destroy()
    } finally {
      await engine.close()
    }
  })

  it('answers from the document\'s own fold: writes, marks and their questions read nothing from the log', async () => {
    const engine = await openEmbeddedEngine(await newHome())
    try {
      const commands = review(engine)
      const docId = await documentWith(engine, 'a\n')
      let reads = 0
      const readStream = engine.store.readStream.bind(engine.store)
      engine.store.readStream = (stream, options) => {
        reads++
        return readStream(stream, options)
      }
      for (let i = 1; i <= 5; i++) {
        await commands.assertBacklogNotFull(docId)
        await engine.commands.documents.write({ docId, content: `a\n${i}\n`, actor: i === 3 ? USER : CLAUDE })
      }
      expect(await commands.unreviewed(docId)).toBe(4)
      const state = (await engine.documents.get(docId))!
      await commands.markReviewed(docId, state.revision, USER)
      expect(await commands.unreviewed(docId)).toBe(0)
      expect(await commands.reviewedUpTo(docId)).toBe(positionOfRevision(state.revision))
      expect(reads).toBe(0)
      // The same counts as a fold of the whole stream.
      const folded = (await engine.documents.rebuild(docId))!
      expect(folded.reviewCounts()).toEqual({ unreviewed: 0, reviewedUpTo: positionOfRevision(state.revision) })
      folded.destroy()
    } finally {
      await engine.close()
    }
  })

  it('refuses a mark that is not a revision or lies beyond the document, and records nothing for a mark that reviews nothing new', async () => {
    const engine = await openEmbeddedEngine(await newHome())
    try {
      const commands = review(engine)
      const docId = await documentWith(engine, 'a\n')
      await expect(commands.markReviewed(docId, 'nonsense', USER)).rejects.toSatisfy((error) => isQuireError(error, 'INVALID_ARGUMENT'))
      await expect(commands.markReviewed(docId, 'rev-zzzz', USER)).rejects.toSatisfy((error) => isQuireError(error, 'INVALID_ARGUMENT'))
      await expect(commands.markReviewed('d-missing', 'rev-1', USER)).rejects.toSatisfy((error) => isQuireError(error, 'NOT_FOUND'))
      const { revision } = await engine.commands.documents.write({ docId, content: 'b\n', actor: CLAUDE })
      await commands.markReviewed(docId, revision, USER)
      const head = engine.store.headPosition
      await commands.markReviewed(docId, revision, USER)
      expect(engine.store.headPosition).toBe(head)
    } finally {
      await engine.close()
    }
  })
})

describe('documentTimeline (history assembly)', () => {
  it('lists saves, applied AI writes with agent, operation, revision and addresses, restores and review marks, newest first', async () => {
    const engine = await openEmbeddedEngine(await newHome())
    try {
      const docId = await documentWith(engine, 'one\n')
      const created = (await engine.documents.get(docId))!.revision
      await engine.commands.documents.markSaved(docId, '/tmp/notes.md', 'save', USER)
      const first = await engine.commands.documents.write({ docId, content: 'one\ntwo\n', actor: CLAUDE, addresses: ['c-1', 'c-2'] })
      await engine.commands.documents.markSaved(docId, '/tmp/notes.md', 'save', CLAUDE)
      const second = await engine.commands.documents.write({ docId, content: 'ONE\ntwo\n', actor: CODEX, operation: 'transform', detail: 'cjk-spacing' })
      const restored = await restoreRevision(engine, docId, first.revision)
      expect(restored.changed).toBe(true)
      expect((await engine.documents.get(docId))!.content).toBe('one\ntwo\n')
      await review(engine).markReviewed(docId, first.revision, USER)
      const timeline = await documentTimeline(engine, docId, {
        resolveComment: (_doc, id) => (id === 'c-2' ? 'deleted' : 'addressed'),
      })
      expect(timeline.map((entry) => entry.kind)).toEqual(['reviewed', 'restore', 'ai-write', 'save', 'ai-write', 'save'])
      expect(timeline[0]).toMatchObject({ kind: 'reviewed', revision: first.revision, actor: 'user' })
      expect(timeline[1]).toMatchObject({ kind: 'restore', restored: first.revision, revision: restored.revision, actor: 'user' })
      expect(timeline[2]).toMatchObject({ kind: 'ai-write', operation: 'transform', agent: 'codex', detail: 'cjk-spacing', revision: second.revision, reviewed: false })
      expect(timeline[3]).toMatchObject({ kind: 'save', reason: 'save', mcp: true, revision: first.revision, actor: 'mcp:claude/c-1' })
      const write = timeline[4] as AiWriteEntry
      expect(write).toMatchObject({ operation: 'write', agent: 'claude', revision: first.revision, reviewed: true })
      expect(write.addresses).toEqual([{ id: 'c-1', state: 'addressed' }, { id: 'c-2', state: 'deleted' }])
      expect(timeline[5]).toMatchObject({ kind: 'save', mcp: false, revision: created })
      // Without a resolver, addressed ids are listed as they were recorded.
      const plain = await documentTimeline(engine, docId)
      expect((plain[4] as AiWriteEntry).addresses).toEqual([{ id: 'c-1' }, { id: 'c-2' }])
    } finally {
      await engine.close()
    }
  })

  it('leaves out a journal entry that was never applied', async () => {
    const engine = await openEmbeddedEngine(await newHome())
    try {
      const docId = await documentWith(engine, 'x\n')
      const { revision } = await engine.commands.documents.write({ docId, content: 'y\n', actor: CLAUDE })
      await expect(engine.commands.documents.write({ docId, content: 'z\n', actor: CLAUDE, watch: () => () => 'closed' })).rejects.toSatisfy(
        (error) => isQuireError(error, 'ABORTED'),
      )
      const writes = (await documentTimeline(engine, docId)).filter((entry) => entry.kind === 'ai-write')
      expect(writes.map((entry) => entry.revision)).toEqual([revision])
      expect(await review(engine).unreviewed(docId)).toBe(1)
    } finally {
      await engine.close()
    }
  })
})

describe('revision diff', () => {
  it('diffs lines: kept, removed and added, with both sides’ line numbers', () => {
    expect(lineDiff('a\nb\nc\n', 'a\nB\nc\nd')).toEqual({
      added: 2,
      removed: 1,
      lines: [
        { kind: 'same', text: 'a', fromLine: 1, toLine: 1 },
        { kind: 'removed', text: 'b', fromLine: 2 },
        { kind: 'added', text: 'B', toLine: 2 },
        { kind: 'same', text: 'c', fromLine: 3, toLine: 3 },
        { kind: 'added', text: 'd', toLine: 4 },
      ],
    })
    expect(lineDiff('same\n', 'same\n')).toEqual({ lines: [{ kind: 'same', text: 'same', fromLine: 1, toLine: 1 }], added: 0, removed: 0 })
  })

  it('diffs two revisions of a document rebuilt from the log', async () => {
    const engine = await openEmbeddedEngine(await newHome())
    try {
      const docId = await documentWith(engine, 'title\nold line\nend\n')
      const from = (await engine.documents.get(docId))!.revision
      const { revision: to } = await engine.commands.documents.write({ docId, content: 'title\nnew line\nend\n', actor: CLAUDE })
      const diff = await diffRevisions(engine, docId, from, to)
      expect(diff).toEqual({
        from, to, added: 1, removed: 1,
        lines: [
          { kind: 'same', text: 'title', fromLine: 1, toLine: 1 },
          { kind: 'removed', text: 'old line', fromLine: 2 },
          { kind: 'added', text: 'new line', toLine: 2 },
          { kind: 'same', text: 'end', fromLine: 3, toLine: 3 },
        ],
      })
      await expect(diffRevisions(engine, docId, from, 'rev-zzzz')).rejects.toSatisfy((error) => isQuireError(error, 'NOT_FOUND'))
    } finally {
      await engine.close()
    }
  })
})
