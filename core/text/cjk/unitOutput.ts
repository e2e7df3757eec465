import { Buffer } from 'node:buffer'

/** Whether this machine stores a Uint16Array's code units little-endian, as Node's `utf16le` decoding reads them. */
const LITTLE_ENDIAN = new Uint8Array(new Uint16Array([1]).buffer)[0] === 1
/** From this many units on, a slice written by Buffer (a memory copy) beats copying unit by unit in JavaScript. */
const NATIVE_COPY = 48

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
