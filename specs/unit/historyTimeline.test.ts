/**
 * The History panel's timeline (issue 26 item 3, projections/history): each AI change with a word-level summary of
 * what it changed, its id and where the person's review left it; the person's keep / undo / redo as entries naming
 * the change; the person's own typing grouped into sessions (consecutive edits a few minutes apart at most, with the
 * paragraphs they touched); a restore with its change id, undoable.
 */
import { describe, expect, it } from 'vitest'
import type * as Y from 'yjs'
import type { Engine } from '../../core/engine.js'
import { openEmbeddedEngine } from '../../adapters/leveldb/embeddedEngine.js'
import { USER, type Actor } from '../../core/events/actor.js'
import { restoreRevision } from '../../core/review/restore.js'
import { documentTimeline, type AiWriteEntry, type EditSessionEntry, type RestoreEntry, type ReviewActionEntry, type TimelineEntry } from '../../projections/history/history.js'
import { changeSummary, hunksSummary } from '../../projections/history/wordSummary.js'
import { personTypes } from '../support/personTypes.js'
import { useTempHomes } from '../support/tempHome.js'

const newHome = useTempHomes()
const CLAUDE: Actor = { kind: 'mcp', principal: 'claude', connection: 'c-1' }
const MINUTE = 60_000

/** An engine whose clock the test moves. */
async function withClock(test: (engine: Engine, clock: { now: number }) => Promise<void>): Promise<void> {
  const clock = { now: Date.UTC(2025, 0, 6, 10, 0, 0) }
  const engine = await openEmbeddedEngine(await newHome(), { now: () => clock.now })
  try {
    await test(engine, clock)
  } finally {
    await engine.close()
  }
}

async function created(engine: Engine, content: string): Promise<string> {
  return (await engine.commands.documents.create({ kind: 'markdown', content, path: null, title: 't', origin: 'untitled', actor: USER })).docId
}

const typeAfter = (needle: string, typed: string) => (text: Y.Text) => text.insert(text.toString().indexOf(needle) + needle.length, typed)

const kinds = (timeline: readonly TimelineEntry[]) => timeline.map((entry) => entry.kind)

describe('word-level summaries', () => {
  it('names what was replaced, added and removed, word by word', () => {
    expect(changeSummary('alpha beta gamma\n', 'alpha BETA gamma delta\n')).toBe("replaced 'beta' with 'BETA', added ' delta'")
    expect(changeSummary('Ship by Friday.\n', 'Ship by Thursday, with tests.\n')).toBe("replaced 'Friday' with 'Thursday, with tests'")
    expect(changeSummary('one two three\n', 'one three\n')).toBe("removed 'two '")
    expect(changeSummary('same\n', 'same\n')).toBe('no change to the text')
  })

  it('shows line breaks, shortens long pieces and counts what it leaves out', () => {
    expect(changeSummary('a\n', 'a\nb\n')).toBe("added 'b↵'")
    const long = 'word '.repeat(30)
    expect(changeSummary('x\n', `x ${long}\n`)).toMatch(/^added ' word word .{20,40}…'$/)
    expect(changeSummary('a b c d e f\n', 'A b C d E f G\n')).toBe("replaced 'a' with 'A', replaced 'c' with 'C', replaced 'e' with 'E', and 1 more")
  })

  it('summarizes hunks as the review API gives them', () => {
    expect(hunksSummary([{ deleted: 'beta', inserted: 'BETA' }, { deleted: '', inserted: ' delta' }])).toBe("replaced 'beta' with 'BETA', added ' delta'")
  })
})

describe('the History timeline (projections/history)', () => {
  it('each AI change with its id, word-level summary and review state; the person\'s keep, undo and redo as entries naming it', () =>
    withClock(async (engine) => {
      const docId = await created(engine, 'alpha beta gamma\n')
      await engine.commands.documents.write({ docId, content: 'alpha BETA gamma delta\n', actor: CLAUDE })
      const [change] = await engine.commands.review.list(docId)
      let timeline = await documentTimeline(engine, docId)
      const write = timeline.find((entry) => entry.kind === 'ai-write') as AiWriteEntry
      expect(write).toMatchObject({ change: change!.id, state: 'pending', reviewed: false, summary: "replaced 'beta' with 'BETA', added ' delta'" })

      await engine.commands.review.undo(docId, change!.id, [1], USER)
      await engine.commands.review.redo(docId, change!.id, [1], USER)
      await engine.commands.review.keep(docId, change!.id, [0], USER)
      timeline = await documentTimeline(engine, docId)
      expect(kinds(timeline).slice(0, 4)).toEqual(['review', 'review', 'review', 'ai-write'])
      const [kept, redone, undone] = timeline as ReviewActionEntry[]
      expect(undone).toMatchObject({ action: 'undone', change: change!.id, agent: 'claude', hunks: [1], of: 2, actor: 'user' })
      expect(redone).toMatchObject({ action: 'redone', change: change!.id, hunks: [1] })
      expect(kept).toMatchObject({ action: 'kept', change: change!.id, hunks: [0] })
      expect(timeline[3]).toMatchObject({ kind: 'ai-write', change: change!.id, state: 'pending', reviewed: false })
      await engine.commands.review.keep(docId, change!.id, undefined, USER)
      expect((await documentTimeline(engine, docId)).find((entry) => entry.kind === 'ai-write')).toMatchObject({ state: 'kept', reviewed: true })
    }))

  it('a restore carries its change id and summary; undone, it says so', () =>
    withClock(async (engine) => {
      const docId = await created(engine, 'one\n')
      const first = (await engine.documents.get(docId))!.revision
      await engine.commands.documents.write({ docId, content: 'one\ntwo\n', actor: CLAUDE })
      const restored = await restoreRevision(engine, docId, first)
      expect(restored.change).toMatch(/^ch-/)
      let entry = (await documentTimeline(engine, docId))[0] as RestoreEntry
      expect(entry).toMatchObject({ kind: 'restore', restored: first, change: restored.change, state: 'kept', summary: "removed 'two↵'" })
      await engine.commands.review.undo(docId, restored.change!, undefined, USER)
      expect((await engine.documents.get(docId))!.content).toBe('one\ntwo\n')
      const timeline = await documentTimeline(engine, docId)
      expect(timeline[0]).toMatchObject({ kind: 'review', action: 'undone', change: restored.change, agent: 'person' })
      entry = timeline.find((item) => item.kind === 'restore') as RestoreEntry
      expect(entry.state).toBe('undone')
    }))

  it('groups the person\'s own typing into sessions: a few minutes apart at most, no AI change between, with the paragraphs touched', () =>
    withClock(async (engine, clock) => {
      const docId = await created(engine, '# Title\n\nFirst paragraph.\n\nSecond paragraph.\n\nThird paragraph.\n')
      // ¶4 (the third paragraph) for four minutes, in three bursts.
      await personTypes(engine, docId, typeAfter('Third paragraph', ','))
      clock.now += 2 * MINUTE
      await personTypes(engine, docId, typeAfter('Third paragraph,', ' slowly'))
      clock.now += 2 * MINUTE
      await personTypes(engine, docId, typeAfter('slowly', ' and surely'))
      // A pause of more than a few minutes starts a new session: ¶2 and ¶3.
      clock.now += 20 * MINUTE
      await personTypes(engine, docId, typeAfter('First paragraph', ' (one)'))
      clock.now += 10_000
      await personTypes(engine, docId, (text) => text.delete(text.toString().indexOf('Second'), 'Second '.length))
      // An AI change between two edits a minute apart ends the session.
      clock.now += 30_000
      await engine.commands.documents.write({ docId, content: `${(await engine.documents.get(docId))!.content}\nAn assistant's line.\n`, actor: CLAUDE })
      clock.now += 30_000
      await personTypes(engine, docId, typeAfter('# Title', '!'))

      const timeline = await documentTimeline(engine, docId)
      expect(kinds(timeline)).toEqual(['edits', 'ai-write', 'edits', 'edits'])
      const [last, , second, first] = timeline as EditSessionEntry[]
      const start = Date.UTC(2025, 0, 6, 10, 0, 0)
      expect(first).toMatchObject({ actor: 'user', at: start, until: start + 4 * MINUTE, edits: 3, paragraphs: [4] })
      expect(second).toMatchObject({ at: start + 24 * MINUTE, until: start + 24 * MINUTE + 10_000, edits: 2, paragraphs: [2, 3] })
      expect(last).toMatchObject({ edits: 1, paragraphs: [1] })
      // Each session ends at the revision its last edit made: restoring it restores the text as the person left it.
      expect(last!.revision).toBe((await engine.documents.get(docId))!.revision)
      expect(first!.position).toBeLessThan(second!.position)
    }))
})
