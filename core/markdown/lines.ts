/** A text's lines by number, as markdown-it counts them (a final line break does not start another line). */
export interface LineTable {
  readonly count: number
  /** Offset of the line's first character. `start(count)` is the text's length. */
  start(line: number): number
  /** Offset just past the line's last character, before its line break. */
  end(line: number): number
  text(line: number): string
  isBlank(line: number): boolean
  /** Only container markers (`>`, `-`, `1.`) and whitespace: a line a list or quote owns without a leaf block. */
  isMarkerOnly(line: number): boolean
}

const MARKERS_ONLY = /^(?:[ \t]*(?:>|[-+*](?=[ \t]|$)|\d{1,9}[.)](?=[ \t]|$)))*[ \t]*$/

export function lineTable(source: string): LineTable {
  const starts: number[] = [0]
  for (let i = source.indexOf('\n'); i >= 0; i = source.indexOf('\n', i + 1)) starts.push(i + 1)
  // A trailing line break ends the last line rather than opening an empty one.
  if (starts.length > 1 && starts[starts.length - 1] === source.length) starts.pop()
  if (source.length === 0) starts.pop()
  const count = starts.length
  const start = (line: number) => (line >= count ? source.length : starts[line]!)
  const end = (line: number) => {
    if (line + 1 >= count) return line >= count ? source.length : source.endsWith('\n') ? source.length - 1 : source.length
    return starts[line + 1]! - 1
  }
  const text = (line: number) => source.slice(start(line), end(line))
  return {
    count,
    start,
    end,
    text,
    isBlank: (line) => /^[ \t\r]*$/.test(text(line)),
    isMarkerOnly: (line) => MARKERS_ONLY.test(text(line)),
  }
}
