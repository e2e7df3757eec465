import * as Y from 'yjs'
import { describe, expect, it } from 'vitest'
import {
  BRIDGE_TO_MIRROR,
  BRIDGE_TO_SOURCE,
  mirrorIsAttached,
  syncMirrorFromSource,
  syncSourceFromMirror,
} from '../../core/documents/bridge.js'
import { readMirror } from '../../core/markdown/mirror.js'
import { parseMarkdown } from '../../core/markdown/parse.js'
import { serializeMarkdown } from '../../core/markdown/serialize.js'

const NON_CANONICAL = [
  'Title',
  '=====',
  '',
  '* star one',
  '* star two',
  '',
  '',
  'A _first_ paragraph',
  'over two lines.  ',
  '',
  '| a | b |',
  '|---|---|',
  '| 1 | 2 |',
  '',
  'Second __paragraph__ here.',
  '',
  '+ plus',
  '+ list',
  '',
].join('\n')

function serverWith(source: string): Y.Doc {
  const doc = new Y.Doc()
  doc.getText('source').insert(0, source)
  return doc
}

function peerOf(server: Y.Doc): Y.Doc {
  const peer = new Y.Doc()
  Y.applyUpdate(peer, Y.encodeStateAsUpdate(server))
  return peer
}

function send(from: Y.Doc, to: Y.Doc): void {
  Y.applyUpdate(to, Y.encodeStateAsUpdate(from, Y.encodeStateVector(to)))
}

/** The first Y.XmlText under the top-level element at `index`. */
function textOf(peer: Y.Doc, index: number): Y.XmlText {
  let node: Y.XmlElement | Y.XmlText = peer.getXmlFragment('prosemirror').get(index) as Y.XmlElement
  while (!(node instanceof Y.XmlText)) node = node.get(0) as Y.XmlElement | Y.XmlText
  return node
}

const canonical = (text: string) => serializeMarkdown(parseMarkdown(text))

describe('WYSIWYG bridge', () => {
  it('initializes the mirror from source once, and then has nothing to do', () => {
    const server = serverWith(NON_CANONICAL)
    expect(mirrorIsAttached(server)).toBe(false)
    expect(syncSourceFromMirror(server)).toBeNull()
    const update = syncMirrorFromSource(server)
    expect(update).toBeInstanceOf(Uint8Array)
    expect(mirrorIsAttached(server)).toBe(true)
    expect(serializeMarkdown(readMirror(server.getXmlFragment('prosemirror')).doc)).toBe(canonical(NON_CANONICAL))
    expect(syncMirrorFromSource(server)).toBeNull()
    expect(syncSourceFromMirror(server)).toBeNull()
    expect(server.getText('source').toString()).toBe(NON_CANONICAL)
  })

  it('replays: the returned updates rebuild the same state without running the bridge', () => {
    const server = serverWith(NON_CANONICAL)
    const replica = new Y.Doc()
    Y.applyUpdate(replica, Y.encodeStateAsUpdate(server))
    const update = syncMirrorFromSource(server)!
    Y.applyUpdate(replica, update)
    expect(replica.getXmlFragment('prosemirror').toString()).toBe(server.getXmlFragment('prosemirror').toString())
  })

  it('a WYSIWYG edit of one paragraph changes only that paragraph in a non-canonical source', () => {
    const server = serverWith(NON_CANONICAL)
    syncMirrorFromSource(server)
    const peer = peerOf(server)
    // Top-level blocks: heading, list, paragraph, table, paragraph, list.
    textOf(peer, 4).insert(0, 'Edited ')
    send(peer, server)
    expect(syncSourceFromMirror(server)).toBeInstanceOf(Uint8Array)
    expect(server.getText('source').toString()).toBe(NON_CANONICAL.replace('Second __paragraph__', 'Edited Second __paragraph__'))
  })

  it('an edit inside a non-canonical list keeps the list as written', () => {
    const server = serverWith(NON_CANONICAL)
    syncMirrorFromSource(server)
    const peer = peerOf(server)
    textOf(peer, 1).insert(4, ' bright')
    send(peer, server)
    syncSourceFromMirror(server)
    expect(server.getText('source').toString()).toBe(NON_CANONICAL.replace('* star one', '* star bright one'))
  })

  it('inserting and deleting blocks in WYSIWYG leaves the other blocks byte-identical', () => {
    const server = serverWith(NON_CANONICAL)
    syncMirrorFromSource(server)
    const peer = peerOf(server)
    const fragment = peer.getXmlFragment('prosemirror')
    const paragraph = new Y.XmlElement('paragraph')
    paragraph.insert(0, [new Y.XmlText('New block')])
    fragment.insert(3, [paragraph])
    send(peer, server)
    syncSourceFromMirror(server)
    expect(server.getText('source').toString()).toBe(NON_CANONICAL.replace('over two lines.  \n', 'over two lines.  \n\nNew block\n'))
    fragment.delete(0, 1)
    send(peer, server)
    syncSourceFromMirror(server)
    expect(server.getText('source').toString()).toBe(NON_CANONICAL.replace('over two lines.  \n', 'over two lines.  \n\nNew block\n').replace('Title\n=====\n\n', ''))
  })

  it('a source change reaches the mirror minimally: untouched blocks keep their Yjs identity', () => {
    const server = serverWith(NON_CANONICAL)
    syncMirrorFromSource(server)
    const fragment = server.getXmlFragment('prosemirror')
    const before = fragment.toArray()
    const text = server.getText('source')
    text.insert(NON_CANONICAL.indexOf('Second'), 'The ')
    syncMirrorFromSource(server)
    const after = fragment.toArray()
    expect(after.length).toBe(before.length)
    for (const index of [0, 1, 2, 3, 5]) expect(after[index]).toBe(before[index])
    expect(serializeMarkdown(readMirror(fragment).doc)).toBe(canonical(text.toString()))
  })

  it('uses distinct origins and never triggers itself', () => {
    const server = serverWith('a\n')
    const origins: unknown[] = []
    server.on('afterTransaction', (transaction: Y.Transaction) => origins.push(transaction.origin))
    syncMirrorFromSource(server)
    const peer = peerOf(server)
    textOf(peer, 0).insert(1, 'b')
    send(peer, server)
    origins.length = 0
    syncSourceFromMirror(server)
    expect(origins).toEqual([BRIDGE_TO_SOURCE])
    server.getText('source').insert(0, 'x')
    origins.length = 0
    syncMirrorFromSource(server)
    expect(origins).toEqual([BRIDGE_TO_MIRROR])
    expect(server.getText('source').toString()).toBe('xab\n')
  })

  it('keeps a peer empty paragraph and trailing space out of the source without fighting them', () => {
    const server = serverWith('one\n')
    syncMirrorFromSource(server)
    const peer = peerOf(server)
    const fragment = peer.getXmlFragment('prosemirror')
    fragment.insert(1, [new Y.XmlElement('paragraph')])
    textOf(peer, 0).insert(3, ' ')
    send(peer, server)
    expect(syncSourceFromMirror(server)).toBeNull()
    expect(syncMirrorFromSource(server)).toBeNull()
    expect(peer.getXmlFragment('prosemirror').length).toBe(2)
  })

  it('syncs a 100 KB document both ways (timings are printed; bench/ measures, tests do not time)', () => {
    let big = ''
    for (let i = 0; big.length < 100_000; i++) big += `## Heading ${i}\n\nSome *text* with **bold** and a [link](http://x/${i}) here.\n\n* item a\n* item b\n\n`
    const server = serverWith(big)
    let started = performance.now()
    syncMirrorFromSource(server)
    const init = performance.now() - started
    server.getText('source').insert(20, 'x')
    started = performance.now()
    syncMirrorFromSource(server)
    const update = performance.now() - started
    const peer = peerOf(server)
    textOf(peer, 7).insert(0, 'y')
    send(peer, server)
    started = performance.now()
    syncSourceFromMirror(server)
    const back = performance.now() - started
    console.log(`100 KB: init ${init.toFixed(0)} ms, source→mirror ${update.toFixed(0)} ms, mirror→source ${back.toFixed(0)} ms`)
    expect(server.getText('source').toString()).toBe(big.slice(0, 20) + 'x' + big.slice(20).replace('## Heading 2\n\nSome', '## Heading 2\n\nySome'))
  })
})
