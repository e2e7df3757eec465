import * as Y from 'yjs'
import type { Mark, Node } from 'prosemirror-model'
import { markdownSchema } from './schema.js'

/** The Y.XmlFragment y-prosemirror's ySyncPlugin binds, next to the canonical Y.Text `source`. */
export const MIRROR_FRAGMENT = 'prosemirror'
export const SOURCE_TEXT = 'source'

/**
 * y-prosemirror's mapping shape (`ProsemirrorMapping`): a Y.XmlElement to its node, a Y.XmlText to its text nodes.
 * `relativePositionToAbsolutePosition` reads `nodeSize` from it.
 */
export type MirrorMapping = Map<Y.AbstractType<unknown>, Node | Node[]>

export interface MirrorRead {
  readonly doc: Node
  readonly mapping: MirrorMapping
  /**
   * The fragment index of the element each top-level node of `doc` was read from (an element the schema cannot read
   * has none; a document with nothing readable gets an empty paragraph that has none either).
   */
  readonly indexes: readonly number[]
}

/** Stands in for an element the schema cannot read, so position arithmetic counts it as nothing. */
const NOTHING = { nodeSize: 0 } as unknown as Node

/**
 * Reads the mirror fragment as a document of `markdownSchema`, with y-prosemirror's Y↔ProseMirror mapping.
 *
 * Unlike y-prosemirror's `initProseMirrorDoc`, this never writes to the Y.Doc: y-prosemirror deletes elements it
 * cannot read and merges adjacent texts while reading, and a write the core made without recording it would break
 * replay. An element the schema does not know is skipped instead (it counts as zero size).
 */
export function readMirror(fragment: Y.XmlFragment): MirrorRead {
  const mapping: MirrorMapping = new Map()
  const content: Node[] = []
  const indexes: number[] = []
  fragment.toArray().forEach((child, index) => {
    if (child instanceof Y.XmlElement) {
      const node = readElement(child, mapping)
      if (node) {
        content.push(node)
        indexes.push(index)
      }
    }
  })
  const doc = markdownSchema.topNodeType.createAndFill(null, content) ?? markdownSchema.topNodeType.create(null, content)
  return { doc, mapping, indexes }
}

/** What `readMirrorKept` keeps of a fragment between reads: each top-level element's node, and which changed since. */
interface KeptRead {
  readonly nodes: WeakMap<Y.XmlElement, Node | null>
  readonly mapping: MirrorMapping
  readonly changed: Set<Y.AbstractType<unknown>>
  /** Whether the fragment's own list of elements changed (an element added or deleted) since the last read. */
  listChanged: boolean
  last?: { readonly read: MirrorRead; readonly childOf: Map<Y.AbstractType<unknown>, number> }
}

const kept = new WeakMap<Y.XmlFragment, KeptRead>()

/**
 * `readMirror`, reading again only the top-level elements that changed since the last read of this fragment (an
 * observer marks the element each change lands in); the others keep the node read before, which is immutable and
 * equal to what reading them again would give. When no element was added or deleted, the last document has only the
 * changed blocks replaced. The bridge reads the mirror on every keystroke: a keystroke then costs the block it
 * touches, not the document. The mapping is the one kept across reads (entries of elements since deleted stay, and
 * are never looked up).
 */
export function readMirrorKept(fragment: Y.XmlFragment): MirrorRead {
  let read = kept.get(fragment)
  if (!read) {
    const fresh: KeptRead = { nodes: new WeakMap(), mapping: new Map(), changed: new Set(), listChanged: true }
    fragment.observeDeep((events) => {
      for (const event of events) {
        const top = topLevelOf(fragment, event.target as Y.AbstractType<unknown>)
        if (top) fresh.changed.add(top)
        else fresh.listChanged = true
      }
    })
    kept.set(fragment, fresh)
    read = fresh
  }
  const replaced = read.listChanged ? undefined : replaceChanged(read)
  const result = replaced ?? readAll(fragment, read)
  read.changed.clear()
  read.listChanged = false
  return result
}

/** The last read with the changed elements read again in place; undefined when that cannot be done. */
function replaceChanged(read: KeptRead): MirrorRead | undefined {
  const last = read.last
  if (!last) return undefined
  let content = last.read.doc.content
  for (const type of read.changed) {
    const index = last.childOf.get(type)
    if (index === undefined || !(type instanceof Y.XmlElement)) return undefined
    const node = readElement(type, read.mapping)
    if (!node) return undefined
    read.nodes.set(type, node)
    content = content.replaceChild(index, node)
  }
  const next = { ...last.read, doc: last.read.doc.copy(content) }
  read.last = { read: next, childOf: last.childOf }
  return next
}

function readAll(fragment: Y.XmlFragment, read: KeptRead): MirrorRead {
  const content: Node[] = []
  const indexes: number[] = []
  const childOf = new Map<Y.AbstractType<unknown>, number>()
  let index = 0
  for (const child of fragment.toArray()) {
    if (child instanceof Y.XmlElement) {
      let node = read.nodes.get(child)
      if (node === undefined || read.changed.has(child as Y.AbstractType<unknown>)) {
        node = readElement(child, read.mapping)
        read.nodes.set(child, node)
      }
      if (node) {
        childOf.set(child as Y.AbstractType<unknown>, content.length)
        content.push(node)
        indexes.push(index)
      }
    }
    index++
  }
  const doc = markdownSchema.topNodeType.createAndFill(null, content) ?? markdownSchema.topNodeType.create(null, content)
  const result = { doc, mapping: read.mapping, indexes }
  // A document with nothing readable gets a paragraph no element holds: no place to replace a block in.
  read.last = content.length > 0 ? { read: result, childOf } : undefined
  return result
}

/** The fragment's direct child `type` is in (itself, or one of its ancestors); undefined for the fragment itself. */
function topLevelOf(fragment: Y.XmlFragment, type: Y.AbstractType<unknown>): Y.AbstractType<unknown> | undefined {
  let current: Y.AbstractType<unknown> = type
  for (;;) {
    const parent = current._item?.parent
    if (!(parent instanceof Y.AbstractType)) return undefined
    if (parent === fragment) return current
    current = parent as Y.AbstractType<unknown>
  }
}

function readElement(element: Y.XmlElement, mapping: MirrorMapping): Node | null {
  const type = markdownSchema.nodes[element.nodeName]
  if (!type || type.isText) {
    mapping.set(element as Y.AbstractType<unknown>, NOTHING)
    return null
  }
  const children: Node[] = []
  for (const child of element.toArray()) {
    if (child instanceof Y.XmlElement) {
      const node = readElement(child, mapping)
      if (node) children.push(node)
    } else if (child instanceof Y.XmlText) {
      const nodes = readText(child)
      mapping.set(child as Y.AbstractType<unknown>, nodes)
      children.push(...nodes)
    }
  }
  const attrs: Record<string, unknown> = {}
  const stored = element.getAttributes() as Record<string, unknown>
  for (const name of Object.keys(type.spec.attrs ?? {})) if (stored[name] !== undefined) attrs[name] = stored[name]
  try {
    const node = type.create(attrs, children)
    mapping.set(element as Y.AbstractType<unknown>, node)
    return node
  } catch {
    mapping.set(element as Y.AbstractType<unknown>, NOTHING)
    return null
  }
}

/** Mark attribute names may carry y-prosemirror's hash suffix (`link--abcd1234`) for overlapping marks. */
const HASHED = /--[a-zA-Z0-9+/=]{8}$/

function readText(text: Y.XmlText): Node[] {
  const nodes: Node[] = []
  for (const op of text.toDelta() as { insert: unknown; attributes?: Record<string, unknown> }[]) {
    if (typeof op.insert !== 'string' || op.insert.length === 0) continue
    const marks: Mark[] = []
    for (const [name, value] of Object.entries(op.attributes ?? {})) {
      const markType = markdownSchema.marks[name.replace(HASHED, '')]
      if (!markType) continue
      try {
        marks.push(markType.create(value as Record<string, unknown> | null))
      } catch {
        // A mark with attributes it cannot have is left off; its text stays.
      }
    }
    nodes.push(markdownSchema.text(op.insert, marks))
  }
  return nodes
}
