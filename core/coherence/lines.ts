/**
 * Splits a segment's bytes into lines with a bound on each (VMark coherence format 0, spec §5.2, §5.6): a line longer
 * than the bound is drained to its newline without being held, so a huge or hostile line costs no memory and is
 * reported as oversized (to be quarantined). Pure: the caller feeds chunks as it reads them.
 */

export type SegmentLine =
  | { readonly number: number; readonly status: 'line'; readonly bytes: Uint8Array }
  | { readonly number: number; readonly status: 'oversized' }

const NEWLINE = 0x0a

export interface LineSplitterOptions {
  /**
   * Whether the caller reuses a chunk's memory after `push` returns (one read buffer for every read). Then every line
   * is copied out of it (the default). A caller that gives each chunk memory of its own may say false, and the lines
   * that lie within one chunk are views of it: no copy per line, which was a tenth of a large ledger's read.
   */
  readonly reusesChunks?: boolean
}

export class BoundedLineSplitter {
  private held: Uint8Array[] = []
  private heldLength = 0
  private oversized = false
  private lineNumber = 0
  private readonly reusesChunks: boolean

  constructor(
    private readonly maxLineBytes: number,
    options: LineSplitterOptions = {},
  ) {
    if (!Number.isSafeInteger(maxLineBytes) || maxLineBytes < 1) throw new RangeError(`maxLineBytes must be a positive integer, got ${maxLineBytes}`)
    this.reusesChunks = options.reusesChunks ?? true
  }

  /** The lines `chunk` completes, in order. */
  push(chunk: Uint8Array): SegmentLine[] {
    const lines: SegmentLine[] = []
    let start = 0
    while (start <= chunk.length) {
      const newline = chunk.indexOf(NEWLINE, start)
      const end = newline === -1 ? chunk.length : newline
      if (newline !== -1 && !this.reusesChunks && this.heldLength === 0 && !this.oversized && end - start <= this.maxLineBytes) {
        // A whole line inside a chunk the caller keeps: handed out as a view of it.
        this.lineNumber += 1
        lines.push({ number: this.lineNumber, status: 'line', bytes: chunk.subarray(start, end) })
        start = newline + 1
        continue
      }
      this.hold(chunk.subarray(start, end))
      if (newline === -1) break
      lines.push(this.finishLine())
      start = newline + 1
    }
    return lines
  }

  /** The last line, if the segment does not end with a newline (a torn tail): it is a line of its own. */
  end(): SegmentLine[] {
    if (this.heldLength === 0 && !this.oversized) return []
    return [this.finishLine()]
  }

  private hold(piece: Uint8Array): void {
    if (piece.length === 0) return
    if (this.oversized) return
    if (this.heldLength + piece.length > this.maxLineBytes) {
      this.oversized = true
      this.held = []
      this.heldLength = 0
      return
    }
    // Copied unless the caller keeps its chunks: it may reuse its read buffer for the next chunk. (Not
    // `piece.slice()`: on a Buffer that is a view of the same memory, and a line spanning two reads came out with the
    // second read's bytes in it.)
    this.held.push(this.reusesChunks ? Uint8Array.prototype.slice.call(piece) : piece)
    this.heldLength += piece.length
  }

  private finishLine(): SegmentLine {
    this.lineNumber += 1
    const number = this.lineNumber
    if (this.oversized) {
      this.oversized = false
      return { number, status: 'oversized' }
    }
    const bytes = this.held.length === 1 ? (this.held[0] as Uint8Array) : Buffer.concat(this.held, this.heldLength)
    this.held = []
    this.heldLength = 0
    return { number, status: 'line', bytes }
  }
}

/** All lines of a segment held in memory at once (tests, small segments). */
export function splitSegment(bytes: Uint8Array, maxLineBytes: number): SegmentLine[] {
  const splitter = new BoundedLineSplitter(maxLineBytes)
  return [...splitter.push(bytes), ...splitter.end()]
}
