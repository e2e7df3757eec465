import { Buffer } from 'node:buffer'

/** Whether this machine stores a Uint16Array's code units little-endian, as Node's `utf16le` decoding reads them. */
const LITTLE_ENDIAN = new Uint8Array(new Uint16Array([1]).buffer)[0] === 1
/**
 * From this many units on, a slice written by Buffer (a memory copy, but some hundreds of nanoseconds of call) beats
 * copying unit by unit in JavaScript (about two nanoseconds a unit).
 */
const NATIVE_COPY = 512

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
 * A sparse rewrite of `text`: the rule names the places it changes, left to right, and everything between is copied.
 * Until the first change nothing is allocated, and a rule that changes nothing returns `text` itself.
 */
export class Rewrite {
  private output: UnitOutput | undefined
  /** Everything before this offset of `text` is settled (copied, or replaced). */
  private copied = 0

  constructor(private readonly text: string) {}

  /** Puts `code` before `text[at]`. */
  insert(at: number, code: number): void {
    const output = this.start()
    output.copy(this.text, this.copied, at)
    output.push(code)
    this.copied = at
  }

  /** Replaces `text[from, to)` with `code`, or with nothing when `code` is -1. */
  replace(from: number, to: number, code: number): void {
    const output = this.start()
    output.copy(this.text, this.copied, from)
    if (code !== -1) output.push(code)
    this.copied = to
  }

  /** Replaces `text[from, to)` unit by unit with `table[unit]`, or the unit itself where the table holds 0. */
  map(from: number, to: number, table: Uint16Array): void {
    const output = this.start()
    output.copy(this.text, this.copied, from)
    const units = output.reserve(to - from)
    for (let at = from; at < to; at++) {
      const code = this.text.charCodeAt(at)
      units[output.length++] = table[code] || code
    }
    this.copied = to
  }

  /** Where the next change may start: changes are made left to right and never overlap. */
  get settled(): number {
    return this.copied
  }

  result(): string {
    if (this.output === undefined) return this.text
    this.output.copy(this.text, this.copied, this.text.length)
    return this.output.toString()
  }

  private start(): UnitOutput {
    return (this.output ??= new UnitOutput(this.text.length + (this.text.length >> 6) + 16))
  }
}
