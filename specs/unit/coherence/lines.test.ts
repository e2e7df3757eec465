import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterEach, beforeEach, describe, expect, it } from 'vitest'
import { CoherenceLedger } from '../../../core/coherence/ledger.js'
import { segmentFileName } from '../../../core/coherence/layout.js'
import { BoundedLineSplitter, splitSegment, type SegmentLine } from '../../../core/coherence/lines.js'
import { OUR_WRITER, transformation } from './support.js'

const text = (bytes: Uint8Array | undefined) => Buffer.from(bytes ?? new Uint8Array()).toString('utf8')

describe('line splitting of segments read in chunks (spec §5.2, §5.6)', () => {
  it('a line split across two reads into one reused buffer keeps its own bytes, and so do lines handed out before', () => {
    const splitter = new BoundedLineSplitter(1000)
    const buffer = Buffer.alloc(8)
    buffer.write('abcd\nefg')
    const first = splitter.push(buffer.subarray(0, 8))
    buffer.write('hi\nxxxxx')
    const second = splitter.push(buffer.subarray(0, 8))
    const last = splitter.end()
    expect([...first, ...second, ...last].map((line) => (line.status === 'line' ? text(line.bytes) : 'oversized'))).toEqual(['abcd', 'efghi', 'xxxxx'])
  })

  it('lines handed out as views of chunks the caller keeps are the lines of copying, for every chunk size', () => {
    // Short lines, empty lines, a line over the bound, a line the size of the bound, and a torn tail.
    const source = `one\ntwo two\n\n${'x'.repeat(40)}\n${'y'.repeat(16)}\nthree\n${'z'.repeat(17)}\ntorn`
    const bytes = Buffer.from(source)
    const described = (lines: readonly SegmentLine[]) => lines.map((line) => `${line.number}:${line.status === 'line' ? text(line.bytes) : 'oversized'}`)
    const expected = described(splitSegment(bytes, 16))
    expect(expected).toContain('4:oversized')
    expect(expected.at(-1)).toBe('8:torn')
    for (let size = 1; size <= bytes.length; size++) {
      for (const reusesChunks of [true, false]) {
        const splitter = new BoundedLineSplitter(16, { reusesChunks })
        const lines: SegmentLine[] = []
        const reused = Buffer.alloc(size)
        for (let at = 0; at < bytes.length; at += size) {
          // A caller that keeps its chunks gives each its own memory; one that reuses them overwrites the last.
          const chunk = reusesChunks ? reused : Buffer.alloc(size)
          const length = bytes.copy(chunk, 0, at, Math.min(at + size, bytes.length))
          lines.push(...splitter.push(chunk.subarray(0, length)))
          if (reusesChunks) reused.fill(0x21)
        }
        lines.push(...splitter.end())
        expect(described(lines), `chunks of ${size}, reusesChunks ${reusesChunks}`).toEqual(expected)
      }
    }
  })

  describe('a segment longer than the 1 MiB read chunk', () => {
    let root: string
    beforeEach(async () => {
      root = await mkdtemp(join(tmpdir(), 'quire-coherence-lines-'))
    })
    afterEach(async () => {
      await rm(root, { recursive: true, force: true })
    })

    it('reads back every entry, none quarantined, though lines cross chunk boundaries', async () => {
      const entries = Array.from({ length: 6000 }, (_, n) => transformation(OUR_WRITER, n + 1, new Date(Date.UTC(2026, 6, 18, 9, 0, 0, n))))
      const segment = `${entries.map((entry) => JSON.stringify(entry)).join('\n')}\n`
      expect(Buffer.byteLength(segment)).toBeGreaterThan(2 * 1024 * 1024)
      await mkdir(join(root, '.vmark', 'ledger'), { recursive: true })
      await writeFile(join(root, '.vmark', 'ledger', segmentFileName(OUR_WRITER, 0)), segment)
      const read = await new CoherenceLedger(root, OUR_WRITER, { writeQuarantine: false }).read()
      expect(read.quarantined).toEqual([])
      expect(read.entries.map((entry) => entry.id)).toEqual(entries.map((entry) => entry.id))
    })
  })
})
