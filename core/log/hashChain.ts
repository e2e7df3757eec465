import { createHash } from 'node:crypto'
import type { ChainedLate, ChainPoint, ChainReport } from './chainReport.js'
import { chunkRecords } from './record.js'

export type { ChainedLate, ChainPoint, ChainReport } from './chainReport.js'

/**
 * Tamper evidence for the log. Every record carries a link: SHA-256 over the link of the record before it, the
 * record's position (8 bytes, big-endian) and the record's bytes as stored. Changing, removing, inserting or
 * reordering a record breaks every link from it on, and a person who keeps the head (position and link) elsewhere
 * can prove the log still extends it: rewriting the whole chain after a change does not give the same head.
 */

export const LINK_BYTES = 32

/** The link before the first record. */
export const GENESIS: Uint8Array = new Uint8Array(LINK_BYTES)

/** The link of the record at `position` whose bytes are `record`, after `previous`. */
export function link(previous: Uint8Array, position: number, record: Uint8Array): Uint8Array {
  const at = new Uint8Array(8)
  new DataView(at.buffer).setBigUint64(0, BigInt(position))
  return createHash('sha256').update(previous).update(at).update(record).digest()
}

/**
 * The links of a chunk's records (the first at `firstPosition`) after `previous`, back to back (LINK_BYTES each).
 * Throws RecordDecodeError when the chunk's framing is damaged.
 */
export function chunkLinks(previous: Uint8Array, firstPosition: number, chunk: Uint8Array): Uint8Array {
  const records = chunkRecords(chunk)
  const links = new Uint8Array(records.length * LINK_BYTES)
  let last = previous
  records.forEach(({ record }, index) => {
    last = link(last, firstPosition + index, record)
    links.set(last, index * LINK_BYTES)
  })
  return links
}

/** The last link of `links` (a chunk's, back to back). */
export function lastLink(links: Uint8Array): Uint8Array {
  return links.subarray(links.length - LINK_BYTES)
}

/** One stored chunk as the chain checks it: its first position, its bytes, and the links stored with it, if any. */
export interface StoredChunk {
  readonly firstPosition: number
  readonly chunk: Uint8Array
  readonly links: Uint8Array | undefined
}

export const toHex = (bytes: Uint8Array): string => Buffer.from(bytes).toString('hex')

/** Reads `POSITION:HEX` (a checkpoint `verify --checkpoint` printed); undefined when it is not one. */
export function parseChainPoint(text: string): ChainPoint | undefined {
  const match = /^(\d+):([0-9a-f]{64})$/i.exec(text.trim())
  if (!match) return undefined
  return { position: Number(match[1]), hash: match[2]!.toLowerCase() }
}

/**
 * Recomputes the chain over `chunks` (in key order, as stored) and names the first position where a record was
 * changed, removed, inserted or reordered; with `against`, whether the recomputed chain passes through that point.
 * `lastPosition` is the log's head as its store reports it.
 */
export async function checkChain(
  chunks: AsyncIterable<StoredChunk>,
  lastPosition: number,
  chainedLate: readonly ChainedLate[],
  against?: ChainPoint,
): Promise<ChainReport> {
  let previous = GENESIS
  let expected = 1
  let broken: ChainReport['broken']
  let atAgainst: string | undefined
  for await (const { firstPosition, chunk, links } of chunks) {
    if (firstPosition < expected) {
      broken = { position: firstPosition, problem: `a record at position ${firstPosition} overlaps the one before it: inserted` }
      break
    }
    if (firstPosition > expected) {
      const missing = firstPosition - 1 === expected ? `position ${expected} is` : `positions ${expected}–${firstPosition - 1} are`
      broken = { position: expected, problem: `${missing} missing: removed` }
      break
    }
    let computed: Uint8Array
    try {
      computed = chunkLinks(previous, firstPosition, chunk)
    } catch {
      broken = { position: firstPosition, problem: `the records from position ${firstPosition} cannot be told apart (damaged framing): changed` }
      break
    }
    const count = computed.length / LINK_BYTES
    if (links === undefined || links.length !== computed.length) {
      broken = { position: firstPosition, problem: `the record at position ${firstPosition} has no link of the chain: inserted or written around it` }
      break
    }
    for (let index = 0; index < count; index++) {
      const from = index * LINK_BYTES
      if (Buffer.compare(computed.subarray(from, from + LINK_BYTES), links.subarray(from, from + LINK_BYTES)) !== 0) {
        const position = firstPosition + index
        broken = { position, problem: `the record at position ${position} is not the one the chain holds: changed, or moved from elsewhere` }
        break
      }
      if (against && firstPosition + index === against.position) atAgainst = toHex(computed.subarray(from, from + LINK_BYTES))
    }
    if (broken) break
    previous = lastLink(computed)
    expected = firstPosition + count
  }
  if (!broken && expected - 1 < lastPosition) {
    broken = { position: expected, problem: `the log's head is position ${lastPosition}, but the records end at ${expected - 1}: removed` }
  }
  // Where the chain holds to (the last whole chunk before a break).
  const head: ChainPoint = { position: expected - 1, hash: toHex(previous) }
  const report: ChainReport = { head, ...(broken ? { broken } : {}), chainedLate }
  if (!against) return report
  if (against.position === 0) return { ...report, against: { point: against, holds: against.hash === toHex(GENESIS) } }
  if (atAgainst === undefined) {
    const problem = broken && broken.position <= against.position
      ? `the chain breaks at position ${broken.position}, before the checkpoint's position ${against.position}`
      : `the log ends at position ${head.position}, before the checkpoint's position ${against.position}`
    return { ...report, against: { point: against, holds: false, problem } }
  }
  const holds = atAgainst === against.hash
  return { ...report, against: { point: against, holds, ...(holds ? {} : { problem: `position ${against.position} links to ${atAgainst}, not to the checkpoint's ${against.hash}: the log before it was altered` }) } }
}
