import { positionOfRevision, revisionToken } from './revision.js'
import { applyHunks, type Hunk } from './textDiff.js'

/**
 * How a journal entry holds the text an edit asks for (JRNL.13, JRNL.16: the journal holds the applied and the saved
 * text): whole, or, for a large text an edit changes little, as that change from the document's text at revision
 * `from` (a log position, so the log rebuilds it exactly). Copying a whole 1 MiB text into the log for an
 * eight-character edit cost more than the rest of the write, and every such entry stayed in the log.
 */
export type JournaledText =
  | { readonly text: string; readonly length: number }
  | { readonly edit: { readonly from: string; readonly hunks: readonly Hunk[] }; readonly length: number }

/** Below this many characters a text is always journaled whole: the saving is too small to be worth a rebuild. */
export const WHOLE_TEXT_BELOW = 4_096
/** The change is journaled instead of the text when it weighs at most this share of the text. */
const EDIT_SHARE = 0.25
/** What a hunk weighs beyond its inserted characters: its two numbers and their field names, encoded. */
const HUNK_WEIGHT = 32

/**
 * The journal's form of `text`, which `hunksFrom()` make from the document's text at log position `fromPosition`
 * (asked only for a large text): the change when it is much smaller than the text, else the text.
 */
export function journaledTextOf(text: string, fromPosition: number, hunksFrom: () => readonly Hunk[]): JournaledText {
  if (text.length < WHOLE_TEXT_BELOW) return { text, length: text.length }
  const hunks = hunksFrom()
  let weight = 0
  for (const hunk of hunks) {
    weight += hunk.insert.length + HUNK_WEIGHT
    if (weight > text.length * EDIT_SHARE) return { text, length: text.length }
  }
  return { edit: { from: revisionToken(fromPosition), hunks: hunks.map(({ start, deleteCount, insert }) => ({ start, deleteCount, insert })) }, length: text.length }
}

/**
 * The text a journal entry holds. `textAt` gives the document's text at a log position (its state rebuilt from the
 * log up to there); it is asked only for an entry that holds a change.
 */
export async function textOfJournal(entry: JournaledText, textAt: (position: number) => Promise<string>): Promise<string> {
  if ('text' in entry) return entry.text
  const position = positionOfRevision(entry.edit.from)
  if (position === undefined) throw new Error(`journal entry names ${JSON.stringify(entry.edit.from)}, which is not a revision`)
  const text = applyHunks(await textAt(position), entry.edit.hunks)
  if (text.length !== entry.length) throw new Error(`journal entry's change from ${entry.edit.from} gives ${text.length} characters, not the ${entry.length} it recorded`)
  return text
}
