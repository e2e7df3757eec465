import { Schema } from 'prosemirror-model'

/** The part of a DOM element the parse rules read (the core compiles without the DOM library). */
interface DomElement {
  getAttribute(name: string): string | null
  hasAttribute(name: string): boolean
  readonly textContent: string | null
}

/**
 * The one ProseMirror schema shared by the core (bridge, selection) and the browser's WYSIWYG editor, so "the
 * editor's serialization" means the same thing everywhere. It is prosemirror-markdown's CommonMark schema plus GFM
 * strikethrough and task list items, plus two lossless fallbacks: `raw_block` and `raw_inline` hold the exact
 * Markdown source of whatever the schema does not model (tables, HTML, front matter, math, reference definitions),
 * so nothing a person wrote is ever lost when a document passes through WYSIWYG.
 *
 * Attribute defaults are either `null` or values y-prosemirror stores as they are: y-prosemirror drops `null`
 * attributes from the Y.XmlElement, so a nullable attribute must default to `null` to read back equal.
 *
 * Nodes (name — attrs):
 * - `doc` — content `block+`.
 * - `paragraph`, `blockquote`, `horizontal_rule`.
 * - `heading` — `level` 1–6 (always written as ATX `#`).
 * - `code_block` — `params` (the info string), `fence` (the opening fence as written: "```", "~~~~"…; indented code
 *   becomes "```"). Written back with the same fence character, lengthened when the content needs it.
 * - `bullet_list` — `tight`, `bullet` ("-", "*" or "+"). `ordered_list` — `order` (start number), `tight`,
 *   `delimiter` ("." or ")"). Adjacent lists of one kind get alternate markers so they stay two lists.
 * - `list_item` — `checked`: null (not a task), false (`[ ]`) or true (`[x]`).
 * - `raw_block` — atom; `source` is the block's exact Markdown (lines, no trailing newline), `kind` says what it is:
 *   "table", "html", "front_matter", "math", "definitions" (link reference / footnote definitions) or "other".
 * - `text`, `image` (`src`, `alt`, `title`), `hard_break`.
 * - `raw_inline` — inline atom; `source` is exact inline Markdown (inline HTML such as `<kbd>`, or a link with no
 *   text).
 *
 * Marks (in nesting order, outermost first): `em`, `strong`, `strike`, `link` (`href`, `title`), `code`.
 */
export const markdownSchema = new Schema({
  nodes: {
    doc: { content: 'block+' },
    paragraph: {
      content: 'inline*',
      group: 'block',
      parseDOM: [{ tag: 'p' }],
      toDOM: () => ['p', 0],
    },
    blockquote: {
      content: 'block+',
      group: 'block',
      parseDOM: [{ tag: 'blockquote' }],
      toDOM: () => ['blockquote', 0],
    },
    horizontal_rule: {
      group: 'block',
      parseDOM: [{ tag: 'hr' }],
      toDOM: () => ['div', ['hr']],
    },
    heading: {
      attrs: { level: { default: 1 } },
      // `inline*`, not prosemirror-markdown's `(text | image)*`: a heading holding inline HTML must still be a heading.
      content: 'inline*',
      group: 'block',
      defining: true,
      parseDOM: [1, 2, 3, 4, 5, 6].map((level) => ({ tag: `h${level}`, attrs: { level } })),
      toDOM: (node) => [`h${Number(node.attrs['level'])}`, 0],
    },
    code_block: {
      content: 'text*',
      group: 'block',
      code: true,
      defining: true,
      marks: '',
      attrs: { params: { default: '' }, fence: { default: '```' } },
      parseDOM: [
        {
          tag: 'pre',
          preserveWhitespace: 'full',
          getAttrs: (dom) => ({ params: (dom as DomElement).getAttribute('data-params') ?? '' }),
        },
      ],
      toDOM: (node) => ['pre', node.attrs['params'] ? { 'data-params': String(node.attrs['params']) } : {}, ['code', 0]],
    },
    ordered_list: {
      content: 'list_item+',
      group: 'block',
      attrs: { order: { default: 1 }, tight: { default: false }, delimiter: { default: '.' } },
      parseDOM: [
        {
          tag: 'ol',
          getAttrs: (dom) => {
            const element = dom as DomElement
            return { order: Number(element.getAttribute('start') ?? 1), tight: element.hasAttribute('data-tight') }
          },
        },
      ],
      toDOM: (node) => [
        'ol',
        { start: node.attrs['order'] === 1 ? null : String(node.attrs['order']), 'data-tight': node.attrs['tight'] ? 'true' : null },
        0,
      ],
    },
    bullet_list: {
      content: 'list_item+',
      group: 'block',
      attrs: { tight: { default: false }, bullet: { default: '-' } },
      parseDOM: [{ tag: 'ul', getAttrs: (dom) => ({ tight: (dom as DomElement).hasAttribute('data-tight') }) }],
      toDOM: (node) => ['ul', { 'data-tight': node.attrs['tight'] ? 'true' : null }, 0],
    },
    list_item: {
      content: 'block+',
      defining: true,
      attrs: { checked: { default: null } },
      parseDOM: [{ tag: 'li' }],
      toDOM: (node) => ['li', node.attrs['checked'] === null ? {} : { 'data-checked': String(node.attrs['checked']) }, 0],
    },
    raw_block: {
      group: 'block',
      atom: true,
      selectable: true,
      attrs: { source: { default: '' }, kind: { default: 'other' } },
      parseDOM: [
        {
          tag: 'pre[data-raw-block]',
          preserveWhitespace: 'full',
          getAttrs: (dom) => {
            const element = dom as DomElement
            return { source: element.textContent ?? '', kind: element.getAttribute('data-raw-block') ?? 'other' }
          },
        },
      ],
      toDOM: (node) => ['pre', { 'data-raw-block': String(node.attrs['kind']) }, String(node.attrs['source'])],
    },
    text: { group: 'inline' },
    image: {
      inline: true,
      attrs: { src: {}, alt: { default: null }, title: { default: null } },
      group: 'inline',
      draggable: true,
      parseDOM: [
        {
          tag: 'img[src]',
          getAttrs: (dom) => {
            const element = dom as DomElement
            return { src: element.getAttribute('src'), title: element.getAttribute('title'), alt: element.getAttribute('alt') }
          },
        },
      ],
      toDOM: (node) => ['img', { src: node.attrs['src'], alt: node.attrs['alt'], title: node.attrs['title'] }],
    },
    hard_break: {
      inline: true,
      group: 'inline',
      selectable: false,
      parseDOM: [{ tag: 'br' }],
      toDOM: () => ['br'],
    },
    raw_inline: {
      inline: true,
      group: 'inline',
      atom: true,
      attrs: { source: { default: '' } },
      parseDOM: [{ tag: 'span[data-raw-inline]', getAttrs: (dom) => ({ source: (dom as DomElement).textContent ?? '' }) }],
      toDOM: (node) => ['span', { 'data-raw-inline': '' }, String(node.attrs['source'])],
    },
  },
  marks: {
    em: {
      parseDOM: [{ tag: 'i' }, { tag: 'em' }, { style: 'font-style=italic' }],
      toDOM: () => ['em'],
    },
    strong: {
      parseDOM: [{ tag: 'strong' }, { tag: 'b' }],
      toDOM: () => ['strong'],
    },
    strike: {
      parseDOM: [{ tag: 's' }, { tag: 'del' }, { tag: 'strike' }],
      toDOM: () => ['s'],
    },
    link: {
      attrs: { href: {}, title: { default: null } },
      inclusive: false,
      parseDOM: [
        {
          tag: 'a[href]',
          getAttrs: (dom) => {
            const element = dom as DomElement
            return { href: element.getAttribute('href'), title: element.getAttribute('title') }
          },
        },
      ],
      toDOM: (mark) => ['a', { href: mark.attrs['href'], title: mark.attrs['title'] }],
    },
    code: {
      code: true,
      parseDOM: [{ tag: 'code' }],
      toDOM: () => ['code'],
    },
  },
})

/** What a `raw_block` holds. */
export type RawBlockKind = 'table' | 'html' | 'front_matter' | 'math' | 'definitions' | 'other'
