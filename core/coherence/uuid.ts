/**
 * UUIDs for the coherence ledger (VMark coherence format 0, spec §2.2, §5.1, §5.6): version 7 (RFC 9562 §5.7) for
 * writer, entry, object and `idem` ids, and a name-based version 8 (RFC 9562 §5.8) for ids that must be the same
 * every time they are derived from the same bytes (the `idem` of a quarantine diagnostic).
 */
import { randomBytes } from 'node:crypto'

function format(bytes: Uint8Array): string {
  const hex = Buffer.from(bytes).toString('hex')
  return `${hex.slice(0, 8)}-${hex.slice(8, 12)}-${hex.slice(12, 16)}-${hex.slice(16, 20)}-${hex.slice(20, 32)}`
}

export interface UuidV7Source {
  /** Milliseconds since the Unix epoch. */
  readonly now: () => number
  /** `n` random bytes. */
  readonly random: (n: number) => Uint8Array
}

const systemSource: UuidV7Source = { now: () => Date.now(), random: (n) => randomBytes(n) }

/**
 * Mints UUIDv7s that increase strictly within this generator: 48 bits of Unix milliseconds, then 74 random bits.
 * When two ids fall in one millisecond, or the clock steps back, the next id is the previous one plus one in its
 * random bits, carrying into the timestamp on overflow (RFC 9562 §6.2, method 2, "monotonic random"), so ids one
 * writer mints in a row sort in the order they were minted, as the readers' (time, id) tie-break expects.
 */
export class UuidV7Generator {
  private lastMs = -1
  /** The 74 random bits of the last id: 12 of rand_a, then 62 of rand_b. */
  private lastRandom = 0n

  constructor(private readonly source: UuidV7Source = systemSource) {}

  next(): string {
    let ms = Math.floor(this.source.now())
    if (!Number.isSafeInteger(ms) || ms < 0 || ms >= 2 ** 48) throw new RangeError(`clock outside the UUIDv7 range: ${ms}`)
    let random: bigint
    if (ms > this.lastMs) {
      random = BigInt(`0x${Buffer.from(this.source.random(10)).toString('hex')}`) & ((1n << 74n) - 1n)
    } else {
      ms = this.lastMs
      random = this.lastRandom + 1n
      if (random >> 74n !== 0n) {
        ms += 1
        random = 0n
      }
    }
    this.lastMs = ms
    this.lastRandom = random
    const randA = Number(random >> 62n)
    const randB = random & ((1n << 62n) - 1n)
    const bytes = new Uint8Array(16)
    const view = new DataView(bytes.buffer)
    view.setUint16(0, Math.floor(ms / 2 ** 32))
    view.setUint32(2, ms % 2 ** 32)
    view.setUint16(6, 0x7000 | randA)
    view.setBigUint64(8, (0b10n << 62n) | randB)
    return format(bytes)
  }
}

const sharedGenerator = new UuidV7Generator()

/** A fresh UUIDv7 from the process-wide generator. */
export const newUuidV7 = (): string => sharedGenerator.next()

/** A version-8 UUID made from the first 16 bytes of a digest, version and variant bits set (RFC 9562 §5.8). */
export function uuidFromDigest(digest: Uint8Array): string {
  if (digest.length < 16) throw new RangeError('a digest of at least 16 bytes is needed')
  const bytes = Uint8Array.from(digest.subarray(0, 16))
  bytes[6] = ((bytes[6] as number) & 0x0f) | 0x80
  bytes[8] = ((bytes[8] as number) & 0x3f) | 0x80
  return format(bytes)
}

const UUID_V7 = /^[0-9a-f]{8}-[0-9a-f]{4}-7[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/

/** Whether `text` is a lower-case UUIDv7. */
export const isUuidV7 = (text: string): boolean => UUID_V7.test(text)

/** The Unix milliseconds a UUIDv7 carries. */
export function uuidV7Milliseconds(id: string): number {
  if (!isUuidV7(id)) throw new RangeError(`not a UUIDv7: ${id}`)
  return Number.parseInt(id.replace(/-/g, '').slice(0, 12), 16)
}
