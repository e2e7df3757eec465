/**
 * Undo, redo and keep of AI changes as a property (DESIGN §11): random assistants' writes, the person's edits in
 * source mode and in the WYSIWYG editor (through the mirror and the bridge), undos (of a change or one hunk), redos and keeps. Characters are followed by their Yjs ids, so each
 * undo is checked against what it must do exactly: it removes only characters the change inserted (every other
 * character shown before is shown after; the person's are never removed), none of the change's inserted characters
 * stay, and what it puts back is exactly the text the change deleted; a redo likewise. At the end the document
 * rebuilt from the log alone equals the live one, its changes included, and verify is green.
 */
import fc from 'fast-check'
import { describe, expect, it } from 'vitest'
import * as Y from 'yjs'
import type { Engine } from '../../core/engine.js'
import { openEmbeddedEngine } from '../../adapters/leveldb/embeddedEngine.js'
import { USER, type Actor } from '../../core/events/actor.js'
import { compareDocuments, verify } from '../../core/audit/verify.js'
import type { AiChange } from '../../core/documents/aiChanges.js'
import { changeToken } from '../../core/documents/aiChanges.js'
import type { TextRun } from '../../core/documents/textChanges.js'
import { fuzzParameters } from '../support/fuzz.js'
import { textblocks, wysiwygPerson } from '../support/wysiwygPerson.js'
import { markdownSchema } from '../../core/markdown/schema.js'
import { useTempHomes } from '../support/tempHome.js'

const newHome = useTempHomes()
const ASSISTANTS: readonly Actor[] = [
  { kind: 'mcp', principal: 'claude', connection: 'c-1' },
  { kind: 'mcp', principal: 'codex', connection: 'c-2' },
]

type Step =
  | { readonly kind: 'write'; readonly who: number; readonly at: number; readonly remove: number; readonly insert: string }
  | { readonly kind: 'type'; readonly at: number; readonly remove: number; readonly insert: string }
  | { readonly kind: 'wysiwyg'; readonly block: number; readonly at: number; readonly insert: string }
  | { readonly kind: 'undo' | 'redo' | 'keep'; readonly change: number; readonly hunk: number | null }

const steps = fc.array(
  fc.oneof(
    { weight: 4, arbitrary: fc.record({ kind: fc.constant('write' as const), who: fc.nat({ max: 1 }), at: fc.nat(), remove: fc.nat({ max: 6 }), insert: fc.stringMatching(/^[a-z ]{0,8}$/) }) },
    { weight: 4, arbitrary: fc.record({ kind: fc.constant('type' as const), at: fc.nat(), remove: fc.nat({ max: 4 }), insert: fc.stringMatching(/^[A-Z]{0,4}$/) }) },
    { weight: 2, arbitrary: fc.record({ kind: fc.constant('wysiwyg' as const), block: fc.nat(), at: fc.nat(), insert: fc.stringMatching(/^[A-Z]{1,4}$/) }) },
    { weight: 3, arbitrary: fc.record({ kind: fc.constant('undo' as const), change: fc.nat(), hunk: fc.option(fc.nat({ max: 3 }), { nil: null }) }) },
    { weight: 2, arbitrary: fc.record({ kind: fc.constant('redo' as const), change: fc.nat(), hunk: fc.option(fc.nat({ max: 3 }), { nil: null }) }) },
    { weight: 1, arbitrary: fc.record({ kind: fc.constant('keep' as const), change: fc.nat(), hunk: fc.option(fc.nat({ max: 3 }), { nil: null }) }) },
  ),
  { minLength: 2, maxLength: 16 },
)

/** The shown characters of the document's text, by id (`client:clock`), with each one's character. */
function shown(ydoc: Y.Doc): Map<string, string> {
  const ids = new Map<string, string>()
  for (let item = ydoc.getText('source')._start; item !== null; item = item.right) {
    if (item.deleted || !(item.content instanceof Y.ContentString)) continue
    const text = item.content.str
    for (let offset = 0; offset < text.length; offset += 1) ids.set(`${item.id.client}:${item.id.clock + offset}`, text[offset]!)
  }
  return ids
}

const idsOf = (runs: readonly TextRun[]): string[] => runs.flatMap((run) => Array.from(run.text, (_, offset) => `${run.client}:${run.clock + offset}`))

describe('undo, redo and keep of AI changes (property)', () => {
  it('an undo removes exactly the change\'s characters and puts back exactly what it deleted; nothing else moves; the log rebuilds it all', async () => {
    await fc.assert(
      fc.asyncProperty(steps, async (sequence) => {
        const engine = await openEmbeddedEngine(await newHome())
        try {
          const { docId } = await engine.commands.documents.create({ kind: 'markdown', content: 'the quick brown fox\n\njumps over the lazy dog\n', path: null, title: 't', origin: 'untitled', actor: USER })
          await engine.commands.documents.attachMirror(docId)
          const editor = await wysiwygPerson(engine, docId)
          const typist = new Y.Doc()
          Y.applyUpdate(typist, Y.encodeStateAsUpdate((await engine.documents.get(docId))!.ydoc))
          const state = async () => (await engine.documents.get(docId))!
          const person = new Set<string>()
          for (const step of sequence) {
            const before = shown((await state()).ydoc)
            if (step.kind === 'write') {
              const text = (await state()).content
              const at = step.at % (text.length + 1)
              const content = text.slice(0, at) + step.insert + text.slice(Math.min(text.length, at + step.remove))
              await engine.commands.documents.write({ docId, content, actor: ASSISTANTS[step.who]!, expectedRevision: (await state()).revision })
            } else if (step.kind === 'type') {
              Y.applyUpdate(typist, Y.encodeStateAsUpdate((await state()).ydoc, Y.encodeStateVector(typist)))
              const source = typist.getText('source')
              const at = step.at % (source.length + 1)
              const vector = Y.encodeStateVector(typist)
              typist.transact(() => {
                source.delete(at, Math.min(step.remove, source.length - at))
                source.insert(at, step.insert)
              })
              await (await engine.commands.documents.applyPeerUpdates(docId, [Y.encodeStateAsUpdate(typist, vector)], { kind: 'peer', peer: 'person' })).durable
              for (const id of shown((await state()).ydoc).keys()) if (!before.has(id)) person.add(id)
            } else if (step.kind === 'wysiwyg') {
              await editor.pull()
              const blocks = textblocks(editor.doc())
              if (blocks.length === 0) continue
              const { node, start } = blocks[step.block % blocks.length]!
              await editor.edit((tr) => tr.insert(start + (step.at % (node.content.size + 1)), markdownSchema.text(step.insert)))
              for (const id of shown((await state()).ydoc).keys()) if (!before.has(id)) person.add(id)
            } else {
              const changes = (await state()).aiChanges().filter((change) => change.by === 'assistant')
              if (changes.length === 0) continue
              const change = changes[step.change % changes.length]!
              const hunks = step.hunk === null || change.hunks.length === 0 ? undefined : [step.hunk % change.hunks.length]
              const act = step.kind === 'undo' ? engine.commands.review.undo : step.kind === 'redo' ? engine.commands.review.redo : engine.commands.review.keep
              let outcome
              try {
                outcome = await act.call(engine.commands.review, docId, changeToken(change.id), hunks, USER)
              } catch (error) {
                // Nothing left to do on those hunks (already undone, not undone, or reviewed): refused, nothing changed.
                expect((error as { code?: string }).code).toBe('INVALID_ARGUMENT')
                expect(shown((await state()).ydoc)).toEqual(before)
                continue
              }
              const after = shown((await state()).ydoc)
              checkRevert(step.kind, change, outcome.done, before, after)
              // The person's characters are never removed by a review.
              for (const id of person) if (before.has(id)) expect(after.has(id), `the person's ${id}`).toBe(true)
            }
          }
          const live = await state()
          const rebuilt = (await engine.documents.rebuild(docId))!
          try {
            expect(compareDocuments(live, rebuilt)).toEqual([])
            expect(rebuilt.aiChanges()).toEqual(live.aiChanges())
          } finally {
            rebuilt.destroy()
          }
          expect((await verify(engine)).ok).toBe(true)
        } finally {
          await engine.close()
        }
      }),
      fuzzParameters({ numRuns: 60 }),
    )
  })
})

/**
 * What an undo (or redo) of hunks `done` of `change` (as it was before) must have done to the shown characters: the
 * ones it removes are its own (the change's inserted ones for an undo, the undo's put-back ones for a redo), all of
 * those are gone, and the new ones spell exactly the text it restores.
 */
function checkRevert(kind: 'undo' | 'redo' | 'keep', change: AiChange, done: readonly number[], before: Map<string, string>, after: Map<string, string>): void {
  if (kind === 'keep') {
    expect(after).toEqual(before)
    return
  }
  const hunks = done.map((index) => change.hunks[index]!)
  const removable = new Set(hunks.flatMap((hunk) => idsOf(kind === 'undo' ? hunk.inserted : hunk.restored)))
  for (const id of before.keys()) {
    if (removable.has(id)) expect(after.has(id), `${kind} left ${id}`).toBe(false)
    else expect(after.get(id), `${kind} removed ${id}`).toBe(before.get(id))
  }
  const created = [...after.entries()].filter(([id]) => !before.has(id)).map(([, character]) => character).sort().join('')
  const restores = hunks.flatMap((hunk) => (kind === 'undo' ? hunk.deleted : hunk.inserted).map((run) => run.text)).join('')
  expect(created, `${kind} put back`).toBe([...restores].sort().join(''))
}
