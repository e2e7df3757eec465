import { createTwoFilesPatch } from 'diff'
import { QuireError } from '../errors.js'

/**
 * One targeted edit of `document.write` (Quire's extension, docs/tools.md "write with edits"): replace `old_text`,
 * which must occur in the text exactly (after line-ending normalisation), by `new_text`. When `old_text` occurs more
 * than once, `occurrence` (1-based) says which.
 */
export interface TextEdit {
  readonly old_text: string
  readonly new_text: string
  readonly occurrence?: number
}

/** Where an edit matched: its 0-based index in the list, its offset in the text it applied to, and its 1-based line. */
export interface AppliedEdit {
  readonly edit: number
  readonly offset: number
  readonly line: number
}

/** The most match lines an EDIT_AMBIGUOUS answer lists. */
const LISTED_MATCHES = 20

const lf = (text: string): string => (text.includes('\r') ? text.replace(/\r\n?/g, '\n') : text)

/**
 * Applies `edits` to `text` one after the other (each one's `old_text` is looked for in the text as the edits before
 * it left it, as MCP filesystem servers' edit_file does), or refuses the whole list, changing nothing:
 * EDIT_NOT_FOUND (`edit`, the index of the edit that failed) when an `old_text` does not occur, or occurs fewer times
 * than its `occurrence`; EDIT_AMBIGUOUS (`edit`, `matches`, `lines`) when it occurs several times and no occurrence
 * is given. Offsets are in UTF-16 code units, as the rest of the surface counts them.
 */
export function applyTextEdits(text: string, edits: readonly TextEdit[]): { readonly text: string; readonly applied: readonly AppliedEdit[] } {
  let current = lf(text)
  const applied: AppliedEdit[] = []
  for (const [index, edit] of edits.entries()) {
    const old = lf(edit.old_text)
    if (old.length === 0) throw new QuireError('INVALID_ARGUMENT', `edit ${index}: old_text is empty; give the text to replace`, { edit: index })
    const offsets = occurrences(current, old)
    if (offsets.length === 0) {
      throw new QuireError('EDIT_NOT_FOUND', `edit ${index}: old_text does not occur in the text${index > 0 ? ' (as the edits before it left it)' : ''}; read the document again, and copy the text exactly`, { edit: index })
    }
    let chosen: number
    if (edit.occurrence !== undefined) {
      if (edit.occurrence > offsets.length) {
        throw new QuireError('EDIT_NOT_FOUND', `edit ${index}: old_text occurs ${offsets.length} time${offsets.length === 1 ? '' : 's'}, so there is no occurrence ${edit.occurrence}`, { edit: index, matches: offsets.length })
      }
      chosen = offsets[edit.occurrence - 1]!
    } else if (offsets.length > 1) {
      const lines = offsets.slice(0, LISTED_MATCHES).map((offset) => lineAt(current, offset))
      throw new QuireError(
        'EDIT_AMBIGUOUS',
        `edit ${index}: old_text occurs ${offsets.length} times (lines ${lines.join(', ')}${offsets.length > LISTED_MATCHES ? ', …' : ''}); add context to make it unique, or give occurrence (1 to ${offsets.length})`,
        { edit: index, matches: offsets.length, lines },
      )
    } else {
      chosen = offsets[0]!
    }
    applied.push({ edit: index, offset: chosen, line: lineAt(current, chosen) })
    current = current.slice(0, chosen) + lf(edit.new_text) + current.slice(chosen + old.length)
  }
  return { text: current, applied }
}

/** Every offset where `needle` starts in `text`, overlapping ones included (so an ambiguity is never missed). */
function occurrences(text: string, needle: string): number[] {
  const found: number[] = []
  for (let at = text.indexOf(needle); at !== -1; at = text.indexOf(needle, at + 1)) found.push(at)
  return found
}

function lineAt(text: string, offset: number): number {
  let line = 1
  for (let at = text.indexOf('\n'); at !== -1 && at < offset; at = text.indexOf('\n', at + 1)) line += 1
  return line
}

/** A git-style unified diff of `before` → `after` for `name` (what a dry run answers). */
export function unifiedDiff(name: string, before: string, after: string): string {
  return createTwoFilesPatch(`a/${name}`, `b/${name}`, before, after, undefined, undefined, { context: 3 })
}
