import { describe, expect, it } from 'vitest'
import * as Y from 'yjs'
import { replayDocument } from '../../core/audit/replay.js'
import { syncMirrorFromSource, syncSourceFromMirror } from '../../core/documents/bridge.js'
import type { Engine } from '../../core/engine.js'
import type { Actor } from '../../core/events/actor.js'
import { markdownSchema } from '../../core/markdown/schema.js'
import { readMirror } from '../../core/markdown/mirror.js'
import { serializeMarkdown } from '../../core/markdown/serialize.js'
import { createDoc, withEngine } from '../support/engines.js'
import { useTempHomes } from '../support/tempHome.js'
import { engineMirror, engineUpdate, textblocks, wysiwygPerson, type WysiwygPerson } from '../support/wysiwygPerson.js'

const newHome = useTempHomes()
const ASSISTANT: Actor = { kind: 'mcp', principal: 'assistant', connection: 'c1' }

/** The person types `text` at the end of the `block`-th paragraph or heading, with the marks found there. */
function typeAtEnd(person: WysiwygPerson, block: number, text: string): Promise<void> {
  return person.edit((tr) => {
    const { node, start } = textblocks(tr.doc)[block]!
    const at = start + node.content.size
    tr.insert(at, markdownSchema.text(text, tr.doc.resolve(at).marks()))
  })
}

/** An assistant's whole-text write, made from the text as it stands (what it would have just read). */
async function assistantWrites(engine: Engine, docId: string, rewrite: (current: string) => string): Promise<void> {
  const current = (await engineMirror(engine, docId)).source
  await engine.commands.documents.write({ docId, content: rewrite(current), actor: ASSISTANT })
}

async function started(engine: Engine, content: string): Promise<{ docId: string; person: WysiwygPerson }> {
  const docId = await createDoc(engine, content)
  await engine.commands.documents.attachMirror(docId)
  return { docId, person: await wysiwygPerson(engine, docId) }
}

const mirrorMarkdown = (fragment: Y.XmlFragment) => serializeMarkdown(readMirror(fragment).doc)

describe('the person\'s text in the WYSIWYG editor is never altered by a write elsewhere (issue 24 item 2)', () => {
  it('"Ben " then an assistant\'s paragraph then "volunteers" reads "Ben volunteers"', async () => {
    await withEngine(await newHome(), async (engine) => {
      const { docId, person } = await started(engine, '')
      await typeAtEnd(person, 0, 'Ben ')
      expect((await engineMirror(engine, docId)).source).toBe('Ben\n')
      await assistantWrites(engine, docId, () => 'Ben\n\nThe assistant wrote this.\n')
      await person.pull()
      expect(person.fragment.get(0).toString()).toBe('<paragraph>Ben </paragraph>')
      await typeAtEnd(person, 0, 'volunteers')
      const { source, fragment } = await engineMirror(engine, docId)
      expect(source).toBe('Ben volunteers\n\nThe assistant wrote this.\n')
      expect(mirrorMarkdown(fragment)).toBe(source)
      expect(await replayDocument(engine, docId)).toBe(source)
    })
  })

  it('a block between two blocks a write changes keeps its Yjs element, its trailing space and its marks', async () => {
    await withEngine(await newHome(), async (engine) => {
      const { docId, person } = await started(engine, 'First.\n\nThe *middle* one.\n\nLast.\n')
      await typeAtEnd(person, 1, ' ')
      await person.edit((tr) => {
        const { node, start } = textblocks(tr.doc)[1]!
        tr.insert(start + node.content.size, markdownSchema.text('bold ', [markdownSchema.marks['strong']!.create()]))
      })
      const before = person.fragment.get(1)
      const xml = before.toString()
      expect(xml).toContain('<strong>bold </strong>')
      await assistantWrites(engine, docId, (current) => current.replace('First.', 'First, rewritten.').replace('Last.', 'Last, rewritten.'))
      await person.pull()
      expect(person.fragment.get(1)).toBe(before)
      expect(person.fragment.get(1).toString()).toBe(xml)
      const { source, fragment } = await engineMirror(engine, docId)
      expect(source).toBe('First, rewritten.\n\nThe *middle* one. **bold**\n\nLast, rewritten.\n')
      expect(mirrorMarkdown(fragment)).toBe(source)
    })
  })

  it('the empty paragraph the person just opened survives a write after it, and their cursor stays in it', async () => {
    await withEngine(await newHome(), async (engine) => {
      const { docId, person } = await started(engine, 'Ben\n')
      await person.edit((tr) => tr.insert(tr.doc.content.size, markdownSchema.nodes['paragraph']!.create()))
      expect(person.fragment.length).toBe(2)
      const empty = person.fragment.get(1) as Y.XmlElement
      const cursor = Y.createRelativePositionFromTypeIndex(empty, 0)
      await assistantWrites(engine, docId, (current) => current + '\nAppended.\n')
      await person.pull()
      expect(person.fragment.toArray()).toContain(empty)
      expect(empty.toString()).toBe('<paragraph></paragraph>')
      const resolved = Y.createAbsolutePositionFromRelativePosition(cursor, person.ydoc)
      expect(resolved?.type).toBe(empty)
      expect(resolved?.index).toBe(0)
      const { source, fragment } = await engineMirror(engine, docId)
      expect(source).toBe('Ben\n\nAppended.\n')
      expect(mirrorMarkdown(fragment)).toBe(source)
    })
  })

  it('a trailing hard break and a double space stay through a reload and a source-mode peer\'s edit elsewhere', async () => {
    await withEngine(await newHome(), async (engine) => {
      const { docId, person } = await started(engine, 'One.\n\nTwo.\n')
      await person.edit((tr) => {
        const { node, start } = textblocks(tr.doc)[0]!
        tr.insert(start + node.content.size, markdownSchema.nodes['hard_break']!.create())
        tr.insert(start + 3, markdownSchema.text('  '))
      })
      const kept = person.fragment.get(0)
      const xml = kept.toString()
      const textNode = (kept as Y.XmlElement).get(0) as Y.XmlText
      const cursor = Y.createRelativePositionFromTypeIndex(textNode, 4)
      const source = (await engineMirror(engine, docId)).source
      expect(source).toBe('One  .\n\nTwo.\n')
      await engine.commands.documents.replaceFromDisk(docId, 'One  .\n\nTwo, from disk.\n', '/nowhere/two.md', { kind: 'disk' })
      const typist = new Y.Doc()
      Y.applyUpdate(typist, await engineUpdate(engine, docId))
      const vector = Y.encodeStateVector(typist)
      typist.getText('source').insert(typist.getText('source').length, '\nThree.\n')
      await (await engine.commands.documents.applyPeerUpdates(docId, [Y.encodeStateAsUpdate(typist, vector)], { kind: 'peer', peer: 'source-editor' })).durable
      await person.pull()
      expect(person.fragment.get(0)).toBe(kept)
      expect(kept.toString()).toBe(xml)
      const resolved = Y.createAbsolutePositionFromRelativePosition(cursor, person.ydoc)
      expect(resolved?.type).toBe(textNode)
      expect(resolved?.index).toBe(4)
      const after = await engineMirror(engine, docId)
      expect(after.source).toBe('One  .\n\nTwo, from disk.\n\nThree.\n')
      expect(mirrorMarkdown(after.fragment)).toBe(after.source)
    })
  })
})

describe('the bridge changes only the blocks whose Markdown changed', () => {
  it('source → mirror: a block the mirror writes the same way, however it holds it, is left as it is', () => {
    const ydoc = new Y.Doc()
    const source = ydoc.getText('source')
    source.insert(0, '- one\n\nTwo\n\nThree\n')
    syncMirrorFromSource(ydoc)
    const fragment = ydoc.getXmlFragment('prosemirror')
    // The person's trailing spaces, written nowhere in the source.
    for (const index of [0, 2]) {
      let node = fragment.get(index) as Y.XmlElement | Y.XmlText
      while (!(node instanceof Y.XmlText)) node = (node as Y.XmlElement).get(0) as Y.XmlElement | Y.XmlText
      node.insert(node.length, ' ')
    }
    expect(syncSourceFromMirror(ydoc)).toBeNull()
    const before = fragment.toArray().map((block) => block.toString())
    source.insert(source.toString().indexOf('Two') + 3, ' and a half')
    syncMirrorFromSource(ydoc)
    const after = fragment.toArray().map((block) => block.toString())
    expect(after).toEqual([before[0], '<paragraph>Two and a half</paragraph>', before[2]])
  })

  it('mirror → source: an edit of one block rewrites no other byte of the source, with the person\'s trailing spaces elsewhere', () => {
    const ydoc = new Y.Doc()
    const source = ydoc.getText('source')
    source.insert(0, 'Title\n=====\n\nA  \nB\n\n* x\n')
    syncMirrorFromSource(ydoc)
    const fragment = ydoc.getXmlFragment('prosemirror')
    ;((fragment.get(0) as Y.XmlElement).get(0) as Y.XmlText).insert(5, ' ')
    ;((fragment.get(1) as Y.XmlElement).toArray().at(-1) as Y.XmlText).insert(1, ' ')
    const list = fragment.get(2) as Y.XmlElement
    ;(((list.get(0) as Y.XmlElement).get(0) as Y.XmlElement).get(0) as Y.XmlText).insert(1, 'yz')
    syncSourceFromMirror(ydoc)
    expect(source.toString()).toBe('Title\n=====\n\nA  \nB\n\n* xyz\n')
  })
})
