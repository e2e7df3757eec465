/**
 * The story of specs/property/mirrorUntouchedBlocks.test.ts, shared with the counterexamples it found
 * (specs/unit/mirrorUntouchedBlocks.regressions.test.ts): a person in WYSIWYG (wysiwygPerson.ts) edits the mirror
 * while others change other blocks of the source through the engine.
 */
import fc from 'fast-check'
import type { Node } from 'prosemirror-model'
import { expect } from 'vitest'
import * as Y from 'yjs'
import { replayDocument } from '../../core/audit/replay.js'
import { textHunks } from '../../core/documents/textDiff.js'
import type { Engine } from '../../core/engine.js'
import type { Actor } from '../../core/events/actor.js'
import { readMirror } from '../../core/markdown/mirror.js'
import { parseMarkdown, parseMarkdownWithSpans } from '../../core/markdown/parse.js'
import { markdownSchema } from '../../core/markdown/schema.js'
import { serializeMarkdown } from '../../core/markdown/serialize.js'
import { createDoc, withEngine } from './engines.js'
import { engineMirror, engineUpdate, textblocks, wysiwygPerson, type WysiwygPerson } from './wysiwygPerson.js'

const ASSISTANT: Actor = { kind: 'mcp', principal: 'assistant', connection: 'c1' }
const SOURCE_PEER: Actor = { kind: 'peer', peer: 'source-editor' }

const canonical = (text: string) => serializeMarkdown(parseMarkdown(text))

/** Starting documents, each as the editor writes it, so `source = serialize(mirror)` holds from the start. */
export const STARTS = [
  '',
  'Ben\n',
  '# Title\n\nFirst *para*.\n\n- one\n- two\n\nLast **one**.\n',
  '> quote\n\n1. a\n2. b\n\n```\ncode\n```\n\nText with `code` and ~~strike~~.\n',
  'A\n\nB\n\nC\n\nD\n',
  '| a |\n| --- |\n| 1 |\n\nafter the table\n\n* [ ] task\n',
].map(canonical)

export type PersonEdit =
  | { kind: 'type'; block: number; at: number; text: string }
  | { kind: 'erase'; block: number; at: number; length: number }
  | { kind: 'break'; block: number; at: number }
  | { kind: 'mark'; block: number; at: number; length: number; mark: 'em' | 'strong' | 'strike' | 'code'; add: boolean }
  | { kind: 'enter'; block: number; at: number }
  | { kind: 'retype'; block: number; level: number }

/** A change of one top-level block of the source, made by someone other than the person. */
export interface Elsewhere {
  kind: 'elsewhere'
  via: 'write' | 'transform' | 'reload' | 'source-peer'
  change: 'insert' | 'replace' | 'delete'
  block: number
}

export type Step = PersonEdit | Elsewhere

export const personEdit: fc.Arbitrary<PersonEdit> = fc.oneof(
  { weight: 4, arbitrary: fc.record({ kind: fc.constant('type' as const), block: fc.nat(), at: fc.nat(), text: fc.constantFrom('a', 'b', ' ', '  ', 'a b', 'x ', ' y') }) },
  fc.record({ kind: fc.constant('erase' as const), block: fc.nat(), at: fc.nat(), length: fc.integer({ min: 1, max: 3 }) }),
  fc.record({ kind: fc.constant('break' as const), block: fc.nat(), at: fc.nat() }),
  fc.record({
    kind: fc.constant('mark' as const), block: fc.nat(), at: fc.nat(), length: fc.integer({ min: 1, max: 4 }),
    mark: fc.constantFrom('em' as const, 'strong' as const, 'strike' as const, 'code' as const), add: fc.boolean(),
  }),
  fc.record({ kind: fc.constant('enter' as const), block: fc.nat(), at: fc.nat() }),
  fc.record({ kind: fc.constant('retype' as const), block: fc.nat(), level: fc.integer({ min: 0, max: 3 }) }),
)

export const elsewhere: fc.Arbitrary<Elsewhere> = fc.record({
  kind: fc.constant('elsewhere' as const),
  via: fc.constantFrom('write' as const, 'transform' as const, 'reload' as const, 'source-peer' as const),
  change: fc.constantFrom('insert' as const, 'replace' as const, 'delete' as const),
  block: fc.nat(),
})

export const step: fc.Arbitrary<Step> = fc.oneof({ weight: 3, arbitrary: personEdit }, { weight: 2, arbitrary: elsewhere })

/**
 * The person's edit as a ProseMirror change (typing, deleting, a break, a mark, Enter, a paragraph made a heading),
 * at a place found from the numbers the generator drew.
 */
function applyPersonEdit(person: WysiwygPerson, edit: PersonEdit): Promise<void> {
  return person.edit((tr) => {
    const blocks = textblocks(tr.doc)
    if (blocks.length === 0) return
    const { node, start } = blocks[edit.block % blocks.length]!
    const size = node.content.size
    const at = start + ('at' in edit ? edit.at % (size + 1) : 0)
    switch (edit.kind) {
      case 'type':
        tr.insert(at, markdownSchema.text(edit.text, tr.doc.resolve(at).marks()))
        break
      case 'erase':
        if (at < start + size) tr.delete(at, Math.min(at + edit.length, start + size))
        break
      case 'break':
        tr.insert(at, markdownSchema.nodes['hard_break']!.create())
        break
      case 'mark': {
        const end = Math.min(at + edit.length, start + size)
        if (end <= at) break
        const type = markdownSchema.marks[edit.mark]!
        if (edit.add) tr.addMark(at, end, type.create())
        else tr.removeMark(at, end, type)
        break
      }
      case 'enter':
        tr.split(at)
        break
      case 'retype':
        // A paragraph becomes a heading of that level, or (level 0) a heading a paragraph.
        if (edit.level === 0) tr.setBlockType(at, at, markdownSchema.nodes['paragraph']!)
        else tr.setBlockType(at, at, markdownSchema.nodes['heading']!, { level: edit.level })
        break
    }
  })
}

/** Whether a top-level block writes no Markdown (an empty paragraph, one of only spaces or breaks). */
const isBlank = (block: Node) => serializeMarkdown(markdownSchema.topNodeType.create(null, [block])) === ''

function children(doc: Node): Node[] {
  const nodes: Node[] = []
  doc.forEach((child) => nodes.push(child))
  return nodes
}

/**
 * `source` with its `block`-th top-level block changed, or undefined when that change would also change the Markdown
 * of another block (two lists merging once the paragraph between them is gone, say): then it is no write "elsewhere".
 */
export function changedElsewhere(source: string, change: Elsewhere['change'], block: number, serial: number): string | undefined {
  const { doc, spans } = parseMarkdownWithSpans(source)
  const all = children(doc)
  const blocks = all.filter((node) => !isBlank(node))
  if (blocks.length > 0 && blocks.length < all.length) return undefined
  const written = `Written ${serial}.`
  let next: string
  let expected: Node[]
  if (blocks.length === 0) {
    if (change !== 'insert') return undefined
    next = written + '\n'
    expected = children(parseMarkdown(next))
  } else {
    const k = block % blocks.length
    const span = spans[k]!
    const writtenBlock = children(parseMarkdown(written))[0]!
    if (change === 'insert') {
      next = source.slice(0, span.to) + '\n\n' + written + source.slice(span.to)
      expected = [...blocks.slice(0, k + 1), writtenBlock, ...blocks.slice(k + 1)]
    } else if (change === 'replace') {
      next = source.slice(0, span.from) + written + source.slice(span.to)
      expected = [...blocks.slice(0, k), writtenBlock, ...blocks.slice(k + 1)]
    } else {
      next = k + 1 < spans.length ? source.slice(0, span.from) + source.slice(spans[k + 1]!.from) : source.slice(0, k === 0 ? 0 : spans[k - 1]!.to) + (k === 0 ? '' : '\n')
      expected = [...blocks.slice(0, k), ...blocks.slice(k + 1)]
    }
  }
  const got = children(parseMarkdown(next)).filter((node) => !isBlank(node))
  if (got.length !== expected.length || got.some((node, i) => !node.eq(expected[i]!))) return undefined
  return next
}

/** Positions a person's cursor could rest at inside `element`: the start, middle and end of each of its texts. */
function cursorsIn(element: Y.XmlElement): { type: Y.XmlText; index: number; relative: Y.RelativePosition }[] {
  const found: { type: Y.XmlText; index: number; relative: Y.RelativePosition }[] = []
  const visit = (parent: Y.XmlElement) => {
    for (const child of parent.toArray()) {
      if (child instanceof Y.XmlElement) visit(child)
      else if (child instanceof Y.XmlText) {
        for (const index of new Set([0, child.length >> 1, child.length])) {
          found.push({ type: child, index, relative: Y.createRelativePositionFromTypeIndex(child, index) })
        }
      }
    }
  }
  visit(element)
  return found
}

async function makeElsewhere(engine: Engine, docId: string, via: Elsewhere['via'], next: string): Promise<void> {
  switch (via) {
    case 'write':
      await engine.commands.documents.write({ docId, content: next, actor: ASSISTANT })
      break
    case 'transform':
      await engine.commands.documents.write({ docId, content: () => next, operation: 'transform', actor: ASSISTANT })
      break
    case 'reload':
      await engine.commands.documents.replaceFromDisk(docId, next, '/nowhere/doc.md', { kind: 'disk' })
      break
    case 'source-peer': {
      const typist = new Y.Doc()
      Y.applyUpdate(typist, await engineUpdate(engine, docId))
      const text = typist.getText('source')
      const vector = Y.encodeStateVector(typist)
      typist.transact(() => {
        const hunks = textHunks(text.toString(), next)
        for (let i = hunks.length - 1; i >= 0; i--) {
          const hunk = hunks[i]!
          if (hunk.deleteCount > 0) text.delete(hunk.start, hunk.deleteCount)
          if (hunk.insert.length > 0) text.insert(hunk.start, hunk.insert)
        }
      })
      await (await engine.commands.documents.applyPeerUpdates(docId, [Y.encodeStateAsUpdate(typist, vector)], SOURCE_PEER)).durable
      typist.destroy()
      break
    }
  }
}

/** Source and mirror agree: the source is the mirror's serialization, and the person sees what the engine holds. */
async function expectInStep(engine: Engine, docId: string, person: WysiwygPerson, context: string): Promise<string> {
  const { source, fragment } = await engineMirror(engine, docId)
  expect(source, context).toBe(serializeMarkdown(readMirror(fragment).doc))
  expect(person.fragment.toString(), context).toBe(fragment.toString())
  return source
}

/**
 * Runs `steps` on a document that starts as `initial`, the person in WYSIWYG on it, and checks after every change made
 * elsewhere that each block it did not change is, in the person's editor, the same Yjs element with the same XML,
 * and every cursor position inside it resolves where it did.
 */
export async function runStory(home: string, initial: string, steps: readonly Step[]): Promise<void> {
  await withEngine(home, async (engine) => {
    const docId = await createDoc(engine, initial)
    await engine.commands.documents.attachMirror(docId)
    const person = await wysiwygPerson(engine, docId)
    const log: string[] = []
    let serial = 0
    for (const current of steps) {
      if (current.kind !== 'elsewhere') {
        await applyPersonEdit(person, current)
        log.push(JSON.stringify(current))
        await expectInStep(engine, docId, person, log.join('\n'))
        continue
      }
      const source = (await engineMirror(engine, docId)).source
      const next = changedElsewhere(source, current.change, current.block, ++serial)
      if (next === undefined) continue
      log.push(`${JSON.stringify(current)}: ${JSON.stringify(source)} → ${JSON.stringify(next)}`)
      const context = log.join('\n') + '\nmirror before: ' + person.fragment.toString()

      // The person's blocks, and which of them is the one changed (the non-blank blocks are the source's, in order).
      const before = person.fragment.toArray() as Y.XmlElement[]
      const markdown = children(person.doc())
      const written = before.filter((_, i) => markdown[i] && !isBlank(markdown[i]!))
      expect(written.length, context).toBe(children(parseMarkdown(source)).filter((node) => !isBlank(node)).length)
      // A document that writes nothing shows one empty paragraph: what is written into it goes there.
      const emptyDocument = written.length === 0 && before.length === 1
      const changed = emptyDocument ? before[0] : written.length === 0 ? undefined : written[current.block % written.length]
      const untouched = before.filter((element) => (current.change === 'insert' && !emptyDocument) || element !== changed)
      const xml = untouched.map((element) => element.toString())
      const cursors = untouched.flatMap(cursorsIn)

      await makeElsewhere(engine, docId, current.via, next)
      await person.pull()

      const after = person.fragment.toArray()
      expect(after.filter((element) => untouched.includes(element as Y.XmlElement)), context).toEqual(untouched)
      expect(untouched.map((element) => element.toString()), context).toEqual(xml)
      for (const cursor of cursors) {
        const resolved = Y.createAbsolutePositionFromRelativePosition(cursor.relative, person.ydoc)
        expect(resolved?.type === cursor.type && resolved.index === cursor.index, context).toBe(true)
      }
      const delta = current.change === 'insert' ? 1 : current.change === 'delete' ? -1 : 0
      if (written.length > 0 && next !== '') expect(after.length, context).toBe(before.length + delta)
      expect(await expectInStep(engine, docId, person, context), context).toBe(next)
    }
    expect(await replayDocument(engine, docId)).toBe((await engineMirror(engine, docId)).source)
  })
}

