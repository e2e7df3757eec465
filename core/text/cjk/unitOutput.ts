import { Buffer } from 'node:buffer'

/** Whether this machine stores a Uint16Array's code units little-endian, as Node's `utf16le` decoding reads them. */
const LITTLE_ENDIAN = new Uint8Array(new Uint16Array([1]).buffer)[0] === 1
/**
 * From this many units on, a slice written by Buffer (a memory copy, but some hundreds of nanoseconds of call) beats
 * copying unit by unit in JavaScript (about two nanoseconds a unit).
 */
const NATIVE_COPY = 512

/** The largest array {@link UnitOutput.shared} keeps between calls: 8 MiB. */
const SHARED_LIMIT = 1 << 22
let sharedOutput: UnitOutput | undefined

/**
 * A transform's output as UTF-16 code units in one growable array, turned into a string once at the end. The
 * scanners copy each unit of their input as they pass it, so the output costs no slices, no string concatenation
 * ropes and no garbage per change; the final decode copies memory, lone surrogates included (unlike TextDecoder,
 * which would replace them).
 */
export class UnitOutput {
  units: Uint16Array
  length = 0
  /** `units` as bytes, for native copies; made again when `units` grows. */
  private bytes: Buffer | undefined

  constructor(capacity: number) {
    this.units = uninitialised(Math.max(16, capacity))
  }

  /**
   * An empty output over one array kept for the whole process and reused by every call: a transform of a megabyte
   * would otherwise allocate (and leave to the collector) megabytes of buffer per rule. Valid until the next call of
   * `shared`: the scanners are synchronous and never nest, and `toString` copies the result out. Arrays beyond
   * {@link SHARED_LIMIT} units are not kept.
   */
  static shared(capacity: number): UnitOutput {
    if (capacity > SHARED_LIMIT) return new UnitOutput(capacity)
    if (sharedOutput === undefined || sharedOutput.units.length < capacity) sharedOutput = new UnitOutput(Math.max(capacity, 1 << 16))
    sharedOutput.length = 0
    return sharedOutput
  }

  /** Makes room for `extra` more units beyond `length`; returns the (possibly new) array. */
  reserve(extra: number): Uint16Array {
    const needed = this.length + extra
    if (needed > this.units.length) {
      const grown = uninitialised(Math.max(needed, this.units.length * 2))
      grown.set(this.units.subarray(0, this.length))
      this.units = grown
    }
    return this.units
  }

  /** Appends `text[from, to)`: unit by unit when short, as one native copy of a slice when long. */
  copy(text: string, from: number, to: number): void {
    const units = this.reserve(to - from)
    let w = this.length
    if (to - from >= NATIVE_COPY && LITTLE_ENDIAN) {
      if (this.bytes === undefined || this.bytes.buffer !== units.buffer) this.bytes = Buffer.from(units.buffer, units.byteOffset, units.length * 2)
      this.bytes.write(text.slice(from, to), w * 2, 'utf16le')
      this.length = w + to - from
      return
    }
    for (let at = from; at < to; at++) units[w++] = text.charCodeAt(at)
    this.length = w
  }

  push(code: number): void {
    this.reserve(1)[this.length++] = code
  }

  toString(): string {
    const bytes = Buffer.from(this.units.buffer, this.units.byteOffset, this.length * 2)
    if (!LITTLE_ENDIAN) return Buffer.from(bytes).swap16().toString('utf16le')
    return bytes.toString('utf16le')
  }
}

/** An array of `length` units whose contents are garbage: every unit is written before it is read, so no zero-fill. */
function uninitialised(length: number): Uint16Array {
  const bytes = Buffer.allocUnsafeSlow(length * 2)
  return new Uint16Array(bytes.buffer, bytes.byteOffset, length)
}

/**
 * A sparse rewrite of `text`: the rule names the places it changes, left to right and never overlapping, and
 * everything between is kept. Nothing is built until {@link result}: a rule that changed nothing returns `text`
 * itself; a few changes are joined from slices (native copies, tens of nanoseconds a piece); many changes are
 * written unit by unit into a {@link UnitOutput} (a few nanoseconds a unit, whatever the number of changes).
 */
export class Rewrite {
  private readonly froms: number[] = []
  private readonly tos: number[] = []
  private readonly replacements: string[] = []

  constructor(private readonly text: string) {}

  /** Puts `code` before `text[at]`. */
  insert(at: number, code: number): void {
    this.change(at, at, charOf(code))
  }

  /** Replaces `text[from, to)` with `code`, or with nothing when `code` is -1. */
  replace(from: number, to: number, code: number): void {
    this.change(from, to, code === -1 ? '' : charOf(code))
  }

  /** Replaces `text[from, to)` unit by unit with `table[unit]`, or the unit itself where the table holds 0. */
  map(from: number, to: number, table: Uint16Array): void {
    let replacement = ''
    for (let at = from; at < to; at++) {
      const code = this.text.charCodeAt(at)
      replacement += charOf(table[code] || code)
    }
    this.change(from, to, replacement)
  }

  /** Where the next change may start: the end of the last one. */
  get settled(): number {
    const count = this.tos.length
    return count === 0 ? 0 : this.tos[count - 1]!
  }

  result(): string {
    const { text, froms, tos, replacements } = this
    const count = froms.length
    if (count === 0) return text
    if (count * SLICES_PER_UNIT_COPY < text.length) {
      const pieces = new Array<string>(2 * count + 1)
      let kept = 0
      for (let index = 0; index < count; index++) {
        pieces[2 * index] = text.slice(kept, froms[index])
        pieces[2 * index + 1] = replacements[index]!
        kept = tos[index]!
      }
      pieces[2 * count] = text.slice(kept)
      return pieces.join('')
    }
    const output = UnitOutput.shared(text.length + count + 16)
    let kept = 0
    for (let index = 0; index < count; index++) {
      output.copy(text, kept, froms[index]!)
      const replacement = replacements[index]!
      for (let at = 0; at < replacement.length; at++) output.push(replacement.charCodeAt(at))
      kept = tos[index]!
    }
    output.copy(text, kept, text.length)
    return output.toString()
  }

  private change(from: number, to: number, replacement: string): void {
    this.froms.push(from)
    this.tos.push(to)
    this.replacements.push(replacement)
  }
}

/**
 * Joining slices costs about as much per change as copying this many units one by one, decoding included: below one
 * change per this many units, slices are cheaper.
 */
const SLICES_PER_UNIT_COPY = 25

const SINGLE_CHARACTERS = Array.from({ length: 0x80 }, (_, code) => String.fromCharCode(code))
const charOf = (code: number): string => (code < 0x80 ? SINGLE_CHARACTERS[code]! : String.fromCharCode(code))
