import fc from 'fast-check'
import { describe, expect, it } from 'vitest'
import * as Y from 'yjs'
import type { Engine } from '../../core/engine.js'
import { openEmbeddedEngine } from '../../adapters/leveldb/embeddedEngine.js'
import { USER, type Actor } from '../../core/events/actor.js'
import { documentStream, JournalRecorded } from '../../core/documents/events.js'
import { journaledTextOf, textOfJournal, WHOLE_TEXT_BELOW, type JournaledText } from '../../core/documents/journaledText.js'
import { textHunks } from '../../core/documents/textDiff.js'
import { dataOf } from '../../core/events/schema.js'
import { createEventRegistry } from '../../core/eventRegistry.js'
import { fuzzParameters } from '../support/fuzz.js'
import { useTempHomes } from '../support/tempHome.js'

const newHome = useTempHomes()
const CLAUDE: Actor = { kind: 'mcp', principal: 'claude', connection: 'c-1' }
const PEER: Actor = { kind: 'peer', peer: 'p-1' }

/** Every journal entry of the document, and the text it holds, rebuilt from the log as a reader of the log would. */
async function journaledTexts(engine: Engine, docId: string): Promise<{ entry: JournaledText; text: string }[]> {
  const found: { entry: JournaledText; text: string }[] = []
  for await (const event of engine.store.readStream(documentStream(docId))) {
    if (event.type !== JournalRecorded.type) continue
    const entry = dataOf(event, JournalRecorded) as JournaledText
    const text = await textOfJournal(entry, async (position) => {
      const state = (await engine.documents.rebuild(docId, position))!
      try {
        return state.content
      } finally {
        state.destroy()
      }
    })
    found.push({ entry, text })
  }
  return found
}

const paragraph = (seed: number) => `Paragraph ${seed}: ${'lorem ipsum dolor sit amet '.repeat(8)}\n\n`
const largeText = (paragraphs: number, offset = 0) => Array.from({ length: paragraphs }, (_, i) => paragraph(i + offset)).join('')

/**
 * JRNL.13 / JRNL.16: the journal holds the text an edit asks for. A large text an edit changes little is journaled
 * as that change from the document's text at a revision, and the log rebuilds the text exactly, whatever happened
 * between the tab's read and its write (peers' keystrokes, other writes: a tab's write is then merged, and what it
 * asked for is still what the journal holds).
 */
describe('JRNL.13 JRNL.16 the journal\'s text, whole or as a change', () => {
  it('keeps small texts and rewrites whole, and a small change of a large text as the change', () => {
    const small = 'a short text\n'
    expect(journaledTextOf(small, 7, () => textHunks('other\n', small))).toEqual({ text: small, length: small.length })
    const before = largeText(30)
    const edited = before.replace('Paragraph 12:', 'Paragraph twelve:')
    const entry = journaledTextOf(edited, 42, () => textHunks(before, edited))
    expect('edit' in entry && entry.edit.from).toBe('rev-16')
    expect(entry.length).toBe(edited.length)
    expect(JSON.stringify(entry).length).toBeLessThan(200)
    const rewritten = largeText(30, 100)
    expect(journaledTextOf(rewritten, 42, () => textHunks(before, rewritten))).toEqual({ text: rewritten, length: rewritten.length })
    // A text under the threshold is never diffed at all.
    expect(journaledTextOf('x'.repeat(WHOLE_TEXT_BELOW - 1), 1, () => { throw new Error('diffed') })).toHaveProperty('text')
  })

  it('refuses to rebuild a change that does not give the length it recorded', async () => {
    const entry: JournaledText = { edit: { from: 'rev-1', hunks: [{ start: 0, deleteCount: 0, insert: 'x' }] }, length: 5 }
    await expect(textOfJournal(entry, async () => 'abc')).rejects.toThrow(/gives 4 characters, not the 5/)
  })

  it('reads a version 1 entry (always the whole text) with its length', () => {
    expect(createEventRegistry().read('journal.recorded', 1, { operation: 'write', text: 'old entry\n', baseRevision: 'rev-1' })).toEqual({
      operation: 'write', text: 'old entry\n', length: 10, baseRevision: 'rev-1',
    })
    expect(() => createEventRegistry().prepare('journal.recorded', { operation: 'write', length: 3, baseRevision: 'rev-1' })).toThrow(/exactly one/)
  })

  const step = fc.oneof(
    fc.record({ kind: fc.constant('write' as const), paragraph: fc.nat({ max: 40 }), words: fc.constantFrom('new words', '', 'a\nb\n', '😀 emoji'), stale: fc.boolean() }),
    fc.record({ kind: fc.constant('rewrite' as const), offset: fc.nat({ max: 1000 }) }),
    fc.record({ kind: fc.constant('peer' as const), at: fc.nat(), remove: fc.nat({ max: 30 }), insert: fc.constantFrom('', 'typed ', 'line\n', '中文') }),
    fc.record({ kind: fc.constant('read' as const) }),
  )

  it('every journal entry rebuilds from the log to exactly the text its write asked for', async () => {
    await fc.assert(
      fc.asyncProperty(fc.array(step, { minLength: 1, maxLength: 12 }), async (steps) => {
        const engine = await openEmbeddedEngine(await newHome())
        try {
          const { docId } = await engine.commands.documents.create({ kind: 'markdown', content: largeText(30), path: null, title: 'x', origin: 'untitled', actor: USER })
          const state = (await engine.documents.get(docId))!
          const writer = { tabId: 't-1', windowLabel: 'main' }
          await engine.commands.documents.readAs(docId, { tabId: writer.tabId, actor: USER }, () => undefined)
          let tabText = state.content
          const asked: string[] = []
          const peer = new Y.Doc()
          for (const one of steps) {
            if (one.kind === 'read') {
              await engine.commands.documents.readAs(docId, { tabId: writer.tabId, actor: USER }, () => undefined)
              tabText = state.content
            } else if (one.kind === 'peer') {
              Y.applyUpdate(peer, Y.encodeStateAsUpdate(state.ydoc, Y.encodeStateVector(peer)))
              const text = peer.getText('source')
              const at = text.length === 0 ? 0 : one.at % text.length
              const vector = Y.encodeStateVector(state.ydoc)
              peer.transact(() => {
                text.delete(at, Math.min(one.remove, text.length - at))
                if (one.insert) text.insert(at, one.insert)
              })
              await engine.commands.documents.applyPeerUpdates(docId, [Y.encodeStateAsUpdate(peer, vector)], PEER)
            } else {
              const lines = tabText.split('\n\n')
              const content = one.kind === 'rewrite'
                ? largeText(30, one.offset)
                : lines.map((line, index) => (index === one.paragraph % lines.length ? `${line} ${one.words}` : line)).join('\n\n')
              // A stale tab writes from what it last read, merged into what happened since; else from the document now.
              const outcome = one.kind === 'write' && one.stale
                ? await engine.commands.documents.write({ docId, content, writer, fromTabBase: true, actor: CLAUDE })
                : await engine.commands.documents.write({ docId, content, expectedRevision: state.revision, writer, actor: CLAUDE })
              if (outcome.changed) asked.push(content)
              tabText = state.content
            }
          }
          peer.destroy()
          const journaled = await journaledTexts(engine, docId)
          expect(journaled.map(({ text }) => text)).toEqual(asked)
          for (const { entry, text } of journaled) expect(entry.length).toBe(text.length)
        } finally {
          await engine.close()
        }
      }),
      fuzzParameters({ numRuns: 25 }),
    )
  })

  it('a one-word edit of a large document journals the change, not the text', async () => {
    const engine = await openEmbeddedEngine(await newHome())
    try {
      const initial = largeText(2_000)
      const { docId, revision } = await engine.commands.documents.create({ kind: 'markdown', content: initial, path: null, title: 'x', origin: 'untitled', actor: USER })
      const content = initial.replace('Paragraph 1500:', 'Paragraph fifteen hundred:')
      await engine.commands.documents.write({ docId, content, expectedRevision: revision, actor: CLAUDE })
      const [journaled] = await journaledTexts(engine, docId)
      expect(journaled!.text).toBe(content)
      expect('edit' in journaled!.entry).toBe(true)
      expect(JSON.stringify(journaled!.entry).length).toBeLessThan(300)
      expect(initial.length).toBeGreaterThan(400_000)
    } finally {
      await engine.close()
    }
  })
})
