import { diffMain, DIFF_EQUAL, DIFF_DELETE } from 'diff-match-patch-es'
import { textHunks, type Hunk } from './textDiff.js'

/** A run where the canonical text and the person's text differ: `[a0, a1)` in the one, `[s0, s1)` in the other. */
interface Stretch {
  readonly a0: number
  readonly a1: number
  readonly s0: number
  readonly s1: number
}

interface Alignment {
  readonly stretches: readonly Stretch[]
  /** For each canonical character, the offset in the person's text just before / just after it. */
  readonly before: Int32Array
  readonly after: Int32Array
}

function align(canonical: string, original: string): Alignment {
  const before = new Int32Array(canonical.length)
  const after = new Int32Array(canonical.length)
  const stretches: Stretch[] = []
  let a = 0
  let s = 0
  let open: { a0: number; s0: number } | undefined
  for (const [op, text] of diffMain(canonical, original)) {
    if (op === DIFF_EQUAL) {
      if (open) stretches.push({ a0: open.a0, a1: a, s0: open.s0, s1: s })
      open = undefined
      for (let k = 0; k < text.length; k++) {
        before[a + k] = s + k
        after[a + k] = s + k + 1
      }
      a += text.length
      s += text.length
    } else {
      open ??= { a0: a, s0: s }
      if (op === DIFF_DELETE) {
        for (let k = 0; k < text.length; k++) {
          before[a + k] = s
          after[a + k] = s
        }
        a += text.length
      } else {
        s += text.length
      }
    }
  }
  if (open) stretches.push({ a0: open.a0, a1: a, s0: open.s0, s1: s })
  return { stretches, before, after }
}

/** A range of the canonical text to replace, with the hunks it took in. */
interface Range {
  a0: number
  a1: number
  hunks: Hunk[]
}

/**
 * Carries the change `canonOld → canonNew` over to `original`, a text that reads the same as `canonOld` but is
 * written differently (`*` bullets, `_em_`, setext headings…): each hunk lands at the matching place of `original`,
 * and only where a hunk touches a differently-written run is that run rewritten in canonical form. Everything the
 * change does not touch keeps the person's spelling. The caller checks the result reads as intended.
 */
export function rebase(original: string, canonOld: string, canonNew: string): string {
  if (original === canonOld) return canonNew
  const hunks = textHunks(canonOld, canonNew)
  if (hunks.length === 0) return original
  const { stretches, before, after } = align(canonOld, original)
  const ranges: Range[] = []
  for (const hunk of hunks) {
    const range: Range = { a0: hunk.start, a1: hunk.start + hunk.deleteCount, hunks: [hunk] }
    // Widen over every differently-written run the hunk touches (a run it only borders stays).
    let changed = true
    while (changed) {
      changed = false
      for (const stretch of stretches) {
        if (stretch.a0 === stretch.a1) continue
        const touches =
          range.a0 === range.a1 ? stretch.a0 < range.a0 && range.a0 < stretch.a1 : stretch.a0 < range.a1 && range.a0 < stretch.a1
        if (touches && (stretch.a0 < range.a0 || stretch.a1 > range.a1)) {
          range.a0 = Math.min(range.a0, stretch.a0)
          range.a1 = Math.max(range.a1, stretch.a1)
          changed = true
        }
      }
    }
    const previous = ranges[ranges.length - 1]
    if (previous && range.a0 < previous.a1) {
      previous.a1 = Math.max(previous.a1, range.a1)
      previous.hunks.push(hunk)
    } else {
      ranges.push(range)
    }
  }
  let out = original
  let delta = 0
  const edits: { from: number; to: number; insert: string }[] = []
  for (const range of ranges) {
    const b0 = range.a0 + delta
    for (const hunk of range.hunks) delta += hunk.insert.length - hunk.deleteCount
    const b1 = range.a1 + delta
    const startStretch = stretches.find((st) => st.a0 === range.a0 && st.a0 < st.a1 && st.a1 <= range.a1)
    const endStretch = stretches.find((st) => st.a1 === range.a1 && st.a0 < st.a1 && st.a0 >= range.a0)
    let from: number
    let to: number
    if (range.a0 === range.a1) {
      from = to = range.a0 < canonOld.length ? before[range.a0]! : original.length
    } else {
      from = startStretch ? startStretch.s0 : before[range.a0]!
      to = endStretch ? endStretch.s1 : after[range.a1 - 1]!
    }
    edits.push({ from, to: Math.max(from, to), insert: canonNew.slice(b0, b1) })
  }
  for (let i = edits.length - 1; i >= 0; i--) {
    const edit = edits[i]!
    out = out.slice(0, edit.from) + edit.insert + out.slice(edit.to)
  }
  return out
}
