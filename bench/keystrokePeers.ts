import { setTimeout as sleep } from 'node:timers/promises'
import WebSocket from 'ws'
import * as Y from 'yjs'
import { WebsocketProvider } from 'y-websocket'
import { syncMirrorFromSource } from '../core/documents/bridge.js'
import { MIRROR_FRAGMENT, SOURCE_TEXT } from '../core/markdown/mirror.js'
import { processCpuMs } from './mcpSupport.js'
import { percentile } from './util.js'

/** The two ways a person types: into the WYSIWYG mirror (a Y.XmlText of a paragraph) or into the Markdown `source`. */
export type KeystrokeMode = 'wysiwyg' | 'source'

/** Where a keystroke benchmark's peers connect: Quire's `/collab` or the plain Yjs reference. */
export interface KeystrokeServer {
  readonly name: 'quire' | 'plain yjs'
  readonly pid: number
  /** The WebsocketProvider's serverUrl. */
  readonly url: string
  readonly params: Record<string, string>
}

/**
 * A document of `bytes` Markdown: sections of a heading, a paragraph with marks and a link, and a two-item list,
 * ending with a paragraph (where the person types).
 */
export function keystrokeDocument(bytes: number): string {
  const parts: string[] = []
  let length = 0
  for (let i = 0; length < bytes; i++) {
    const section = `## Section ${i}\n\nSome *text* with **bold** and a [link](https://example.com/${i}) in paragraph ${i}.\n\n- item a\n- item b\n\n`
    parts.push(section)
    length += section.length
  }
  parts.push('The last paragraph, where the person types.\n')
  return parts.join('')
}

export interface Peer {
  readonly doc: Y.Doc
  readonly provider: WebsocketProvider
  close(): void
}

/** A y-websocket peer in this process. `seed` fills its document before it connects (the reference holds only what peers bring). */
export function connectPeer(server: KeystrokeServer, room: string, params: Record<string, string> = {}, seed?: (doc: Y.Doc) => void): Peer {
  const doc = new Y.Doc()
  seed?.(doc)
  const provider = new WebsocketProvider(server.url, room, doc, {
    params: { ...server.params, ...params },
    WebSocketPolyfill: WebSocket as unknown as typeof globalThis.WebSocket,
    disableBc: true,
  })
  return {
    doc,
    provider,
    close() {
      provider.destroy()
      doc.destroy()
    },
  }
}

/** The document a plain Yjs peer brings: the Markdown, and in WYSIWYG mode the mirror built from it (as Quire's bridge builds it). */
export function seedDocument(content: string, mode: KeystrokeMode): (doc: Y.Doc) => void {
  return (doc) => {
    doc.getText(SOURCE_TEXT).insert(0, content)
    if (mode === 'wysiwyg') syncMirrorFromSource(doc)
  }
}

/** Resolves once `check` holds, checked after each of the peer's transactions. */
export function until(peer: Peer, check: () => boolean, timeoutMs = 60_000): Promise<void> {
  if (check()) return Promise.resolve()
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => {
      peer.doc.off('afterTransaction', onTransaction)
      reject(new Error(`a peer did not reach the expected state in ${timeoutMs} ms`))
    }, timeoutMs)
    const onTransaction = () => {
      if (!check()) return
      clearTimeout(timer)
      peer.doc.off('afterTransaction', onTransaction)
      resolve()
    }
    peer.doc.on('afterTransaction', onTransaction)
  })
}

/**
 * When a keystroke counts as arrived at another peer: Quire carries a WYSIWYG keystroke to `source` (its bridge)
 * in the same append, so its observer waits for `source` in both modes, after the append is durable (Quire's
 * durable rule fans out only then); the plain Yjs server relays the mirror's change as it is.
 */
export function arrivedType(server: KeystrokeServer, mode: KeystrokeMode, doc: Y.Doc): Y.Text | Y.XmlFragment {
  return server.name === 'plain yjs' && mode === 'wysiwyg' ? doc.getXmlFragment(MIRROR_FRAGMENT) : doc.getText(SOURCE_TEXT)
}

/** Resolves with the epoch time (ms) of the next transaction of `peer` that changes `type` (or anything inside it). */
export function nextChange(peer: Peer, type: Y.Text | Y.XmlFragment, timeoutMs = 60_000): Promise<number> {
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => {
      peer.doc.off('afterTransaction', onTransaction)
      reject(new Error(`no change arrived in ${timeoutMs} ms`))
    }, timeoutMs)
    const onTransaction = (transaction: Y.Transaction) => {
      const touched = (changed: Map<unknown, unknown>) => changed.has(type)
      if (!touched(transaction.changed) && !touched(transaction.changedParentTypes)) return
      clearTimeout(timer)
      peer.doc.off('afterTransaction', onTransaction)
      resolve(epochMs())
    }
    peer.doc.on('afterTransaction', onTransaction)
  })
}

/** Wall-clock milliseconds with sub-millisecond resolution, comparable with a browser page's `timeOrigin + now()`. */
export const epochMs = (): number => performance.timeOrigin + performance.now()

/** The last paragraph's text in the mirror: where a WYSIWYG peer types. */
function lastParagraphText(doc: Y.Doc): Y.XmlText {
  const fragment = doc.getXmlFragment(MIRROR_FRAGMENT)
  for (let i = fragment.length - 1; i >= 0; i--) {
    const element = fragment.get(i)
    if (!(element instanceof Y.XmlElement) || element.nodeName !== 'paragraph') continue
    const children = element.toArray()
    const text = children[children.length - 1]
    if (text instanceof Y.XmlText) return text
  }
  throw new Error('the mirror has no paragraph with text')
}

export interface ServerKeystrokes {
  /** Keystroke to its arrival at the other peer (Quire: durable, and bridged), ms. */
  readonly p50: number
  readonly p99: number
  /** The server process's CPU per keystroke, ms. */
  readonly cpuMs: number
}

/**
 * The server alone: a typist peer and an observer peer in this process, `keys` keystrokes at the end of the last
 * paragraph (WYSIWYG) or before the final line break (source), one at a time, each after the previous one reached
 * the observer and `gapMs` passed; the server's CPU per keystroke from /proc over the keystrokes.
 */
export async function serverKeystrokes(server: KeystrokeServer, room: string, mode: KeystrokeMode, content: string, keys: number, gapMs: number): Promise<ServerKeystrokes> {
  const quire = server.name === 'quire'
  const typist = connectPeer(server, room, quire && mode === 'wysiwyg' ? { mirror: '1' } : {}, quire ? undefined : seedDocument(content, mode))
  const observer = connectPeer(server, room)
  try {
    const contentLength = content.length
    await until(observer, () => observer.doc.getText(SOURCE_TEXT).length >= contentLength)
    await until(typist, () => typist.doc.getText(SOURCE_TEXT).length >= contentLength)
    if (mode === 'wysiwyg') await until(typist, () => typist.doc.getXmlFragment(MIRROR_FRAGMENT).length > 0)
    await sleep(200)
    const latencies: number[] = []
    const type = arrivedType(server, mode, observer.doc)
    const cpuBefore = processCpuMs(server.pid)
    for (let i = 0; i < keys; i++) {
      const arrived = nextChange(observer, type)
      const sent = epochMs()
      if (mode === 'wysiwyg') {
        const text = lastParagraphText(typist.doc)
        text.insert(text.length, 'x')
      } else {
        const text = typist.doc.getText(SOURCE_TEXT)
        text.insert(text.length - 1, 'x')
      }
      latencies.push((await arrived) - sent)
      await sleep(gapMs)
    }
    const cpuMs = (processCpuMs(server.pid) - cpuBefore) / keys
    return { p50: percentile(latencies, 50), p99: percentile(latencies, 99), cpuMs }
  } finally {
    typist.close()
    observer.close()
  }
}
