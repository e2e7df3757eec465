/**
 * Input names and `{name}` references. One rule serves the front matter's `inputs:`, the undeclared-variable check,
 * an action's `type {name}` value and substitution, so a name that can be declared can always be referenced and
 * substituted: VMark's parser rule, `[A-Za-z_][A-Za-z0-9_-]*`.
 */

const isNameStart = (code: number): boolean => (code >= 0x41 && code <= 0x5a) || (code >= 0x61 && code <= 0x7a) || code === 0x5f

const isNamePart = (code: number): boolean => isNameStart(code) || (code >= 0x30 && code <= 0x39) || code === 0x2d

/** The index just past the input name starting at `from`, or `from` itself when none starts there. */
export function scanName(text: string, from: number): number {
  if (from >= text.length || !isNameStart(text.charCodeAt(from))) return from
  let index = from + 1
  while (index < text.length && isNamePart(text.charCodeAt(index))) index++
  return index
}

export function isInputName(name: string): boolean {
  return name.length > 0 && scanName(name, 0) === name.length
}

export interface Reference {
  /** Index of the `{`. */
  readonly start: number
  /** Index just past the `}`. */
  readonly end: number
  readonly name: string
}

/**
 * Every `{name}` in `text`, left to right, not overlapping. A `{` that does not open a reference is passed over alone,
 * so `{a{b}` finds `{b}`; each unit is looked at a bounded number of times.
 */
export function findReferences(text: string): Reference[] {
  const found: Reference[] = []
  let index = text.indexOf('{')
  while (index !== -1) {
    const nameEnd = scanName(text, index + 1)
    if (nameEnd > index + 1 && text.charCodeAt(nameEnd) === 0x7d) {
      found.push({ start: index, end: nameEnd + 1, name: text.slice(index + 1, nameEnd) })
      index = text.indexOf('{', nameEnd + 1)
    } else {
      index = text.indexOf('{', Math.max(nameEnd, index + 1))
    }
  }
  return found
}
