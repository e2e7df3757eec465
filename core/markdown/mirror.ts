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
