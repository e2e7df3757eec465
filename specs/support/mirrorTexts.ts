import * as Y from 'yjs'

/** Every Y.XmlText in a mirror fragment (or element), depth first: where a WYSIWYG peer's typing lands. */
export function mirrorTexts(type: Y.XmlFragment | Y.XmlElement, into: Y.XmlText[] = []): Y.XmlText[] {
  for (const child of type.toArray()) {
    if (child instanceof Y.XmlText) into.push(child)
    else if (child instanceof Y.XmlElement) mirrorTexts(child, into)
  }
  return into
}
