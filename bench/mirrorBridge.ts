import * as Y from 'yjs'
import { syncMirrorFromSource, syncSourceFromMirror } from '../core/documents/bridge.js'
import { changedBlocks } from '../core/documents/bridgeBlocks.js'
import { MIRROR_FRAGMENT, readMirror, SOURCE_TEXT } from '../core/markdown/mirror.js'
import { parseMarkdown } from '../core/markdown/parse.js'
import { fmtMs, median, printTable } from './util.js'

/**
 * `node dist/bench/mirrorBridge.js [KEYSTROKES]`: what the WYSIWYG bridge costs per keystroke while an editor is
 * attached, on documents of 10 KB and 100 KB: a source-mode keystroke carried to the mirror (`syncMirrorFromSource`)
 * and a WYSIWYG keystroke carried to the source (`syncSourceFromMirror`), each on a mirror that writes exactly the
 * source and on one where the person left a trailing space in the first and the last paragraph (blocks that differ
 * from the parse at both ends of the document, so a bridge that compares only the stretch between the first and
 * last difference handles the whole document). Medians of KEYSTROKES (60) keystrokes spread over the document, in
 * this process's CPU time (the bridge is synchronous JavaScript; CPU time holds up on a machine others load). Beside a
 * source keystroke, the part of it spent finding the blocks that changed (`changedBlocks`); the rest is the
 * whole-document parse and mirror read, and the change itself.
 */

/** This process's CPU time so far, in milliseconds. */
function cpuMs(): number {
  const { user, system } = process.cpuUsage()
  return (user + system) / 1000
}

function document(bytes: number): string {
  let text = ''
  for (let i = 0; text.length < bytes; i++) text += `## Heading ${i}\n\nSome *text* with **bold** and a [link](http://x/${i}) here.\n\n* item a\n* item b\n\n`
  return text
}

/** The Y.XmlText of every paragraph, in document order. */
function paragraphTexts(fragment: Y.XmlFragment): Y.XmlText[] {
  const found: Y.XmlText[] = []
  const visit = (parent: Y.XmlFragment | Y.XmlElement) => {
    for (const child of parent.toArray()) {
      if (!(child instanceof Y.XmlElement)) continue
      if (child.nodeName === 'paragraph' && child.get(0) instanceof Y.XmlText) found.push(child.get(0) as Y.XmlText)
      else visit(child)
    }
  }
  visit(fragment)
  return found
}

function attached(bytes: number, trailingSpaces: boolean): Y.Doc {
  const ydoc = new Y.Doc()
  ydoc.getText(SOURCE_TEXT).insert(0, document(bytes))
  syncMirrorFromSource(ydoc)
  if (trailingSpaces) {
    const texts = paragraphTexts(ydoc.getXmlFragment(MIRROR_FRAGMENT))
    for (const text of [texts[0]!, texts[texts.length - 1]!]) text.insert(text.length, ' ')
    syncSourceFromMirror(ydoc)
  }
  return ydoc
}

function sourceKeystrokes(ydoc: Y.Doc, count: number): number[] {
  const text = ydoc.getText(SOURCE_TEXT)
  const times: number[] = []
  for (let i = 0; i < count; i++) {
    // Inside a paragraph's words, spread over the document.
    const at = text.toString().indexOf('Some', Math.floor((text.length * (i + 0.5)) / count))
    text.insert(at < 0 ? 0 : at, 'x')
    const started = cpuMs()
    syncMirrorFromSource(ydoc)
    times.push(cpuMs() - started)
  }
  return times
}

/** The source keystrokes again, timing only `changedBlocks` (the parse and the mirror read before it are not). */
function matchingKeystrokes(ydoc: Y.Doc, count: number): number[] {
  const text = ydoc.getText(SOURCE_TEXT)
  const times: number[] = []
  for (let i = 0; i < count; i++) {
    const at = text.toString().indexOf('Some', Math.floor((text.length * (i + 0.5)) / count))
    text.insert(at < 0 ? 0 : at, 'x')
    const mirror = readMirror(ydoc.getXmlFragment(MIRROR_FRAGMENT)).doc
    const parsed = parseMarkdown(text.toString())
    const started = cpuMs()
    changedBlocks(mirror, parsed)
    times.push(cpuMs() - started)
    syncMirrorFromSource(ydoc)
  }
  return times
}

function mirrorKeystrokes(ydoc: Y.Doc, count: number): number[] {
  const times: number[] = []
  const texts = paragraphTexts(ydoc.getXmlFragment(MIRROR_FRAGMENT))
  for (let i = 0; i < count; i++) {
    const text = texts[1 + Math.floor(((texts.length - 2) * i) / count)]!
    text.insert(0, 'y')
    const started = cpuMs()
    syncSourceFromMirror(ydoc)
    times.push(cpuMs() - started)
  }
  return times
}

const keystrokes = Number(process.argv[2] ?? 60)
const rows: string[][] = []
for (const bytes of [10_000, 100_000]) {
  for (const trailingSpaces of [false, true]) {
    // Warm-up on a separate document, so the first measured keystrokes do not pay for compilation.
    sourceKeystrokes(attached(bytes, trailingSpaces), 5)
    const toMirror = median(sourceKeystrokes(attached(bytes, trailingSpaces), keystrokes))
    const toSource = median(mirrorKeystrokes(attached(bytes, trailingSpaces), keystrokes))
    const matching = median(matchingKeystrokes(attached(bytes, trailingSpaces), keystrokes))
    rows.push([`${bytes / 1000} KB`, trailingSpaces ? 'first and last' : 'none', fmtMs(toMirror), fmtMs(matching), fmtMs(toSource)])
  }
}
printTable('WYSIWYG bridge, CPU per keystroke (median)', ['document', 'person\'s trailing spaces', 'source → mirror', 'of which changedBlocks', 'mirror → source'], rows)
