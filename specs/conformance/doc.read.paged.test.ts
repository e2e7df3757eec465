/**
 * Reading a document too large for one answer (issue 12, item 6; our extension of VMark's surface): `document.read`
 * with `offset`/`length` returns that part of the text with the revision, the text's length and where the next part
 * starts, every answer under the 75,000-byte bound; an assistant reassembles a 1 MiB file byte for byte and writes
 * with expected_revision. A whole read past the bound is VMark's truncation envelope plus the revision.
 */
import { writeFile } from 'node:fs/promises'
import { join } from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { MAX_OUTPUT_BYTES } from '../../adapters/mcp/results.js'
import { TRANSPORTS, bytes, folder, ok, open, plain, removeAll, rig, type Rig, type Transport } from '../support/conformance.js'

/** About 1 MiB of mixed text: ASCII, CJK (3 UTF-8 bytes) and emoji (surrogate pairs), so part boundaries are tested. */
function largeText(): string {
  const lines: string[] = []
  for (let i = 0; Buffer.byteLength(lines.join('\n'), 'utf8') < 1024 * 1024; i++) lines.push(`line ${i}: 中文字符 and 😀 emoji "quoted" \\ back`)
  return lines.join('\n') + '\n'
}

describe.each<Transport>(TRANSPORTS)('DOC.READ paged over %s', (transport) => {
  let r: Rig
  let w: string
  const text = largeText()

  beforeAll(async () => {
    w = await folder('paged')
    await writeFile(join(w, 'big.md'), text)
    r = await rig(transport, { workspaces: [w] })
  })
  afterAll(async () => {
    await r?.close()
    await removeAll(w)
  })

  it('DOC.READ.PAGED reassembles a 1 MiB file from parts byte for byte, every answer under the bound, then writes with expected_revision', async () => {
    const tabId = await open(r.session, join(w, 'big.md'))
    let offset = 0
    let assembled = ''
    let revision: string | undefined
    for (let parts = 0; ; parts++) {
      expect(parts).toBeLessThan(200)
      const result = await r.session.call('document', { action: 'read', tabId, offset })
      expect(Buffer.byteLength(result.text, 'utf8')).toBeLessThanOrEqual(MAX_OUTPUT_BYTES)
      const part = ok(result)
      expect(part.totalLength).toBe(text.length)
      expect(part.offset).toBe(offset)
      expect(part.length).toBe(part.content.length)
      expect((part.content as string).isWellFormed()).toBe(true)
      revision ??= part.revision
      expect(part.revision).toBe(revision)
      assembled += part.content
      if (part.nextOffset === undefined) break
      expect(part.nextOffset).toBe(offset + part.length)
      offset = part.nextOffset
    }
    expect(assembled).toBe(text)
    const written = ok(await r.session.call('document', { action: 'write', tabId, content: assembled + 'the end\n', expected_revision: revision, save: true }))
    expect(written.applied).toBe(true)
    expect(await bytes(join(w, 'big.md'))).toBe(Buffer.from(text + 'the end\n', 'utf8').toString('latin1'))
  })

  it('DOC.READ.PAGED a part never splits a surrogate pair, and a range past the end is refused', async () => {
    const tabId = await open(r.session, join(w, 'big.md'))
    const emoji = text.indexOf('😀')
    const part = ok(await r.session.call('document', { action: 'read', tabId, offset: emoji + 1, length: 3 }))
    expect(part.offset).toBe(emoji + 2)
    expect((part.content as string).isWellFormed()).toBe(true)
    const cut = ok(await r.session.call('document', { action: 'read', tabId, offset: emoji - 1, length: 2 }))
    expect(cut.content).toBe(text.slice(emoji - 1, emoji + 2))
    const total = ok(await r.session.call('document', { action: 'read', tabId, offset: 0, length: 1 })).totalLength as number
    plain(await r.session.call('document', { action: 'read', tabId, offset: total + 1 }), /offset must be between 0 and/)
  })

  it('DOC.READ.PAGED a whole read past the bound is the truncation envelope with the revision and nextOffset 0', async () => {
    const tabId = await open(r.session, join(w, 'big.md'))
    const result = await r.session.call('document', { action: 'read', tabId })
    expect(Buffer.byteLength(result.text, 'utf8')).toBeLessThanOrEqual(MAX_OUTPUT_BYTES)
    const truncated = ok(result)
    expect(truncated).toMatchObject({ truncated: true, nextOffset: 0, totalLength: (text + 'the end\n').length, filePath: join(w, 'big.md') })
    expect(truncated.revision).toMatch(/^rev-/)
    expect(String(truncated.truncation_note)).toMatch(/offset, length/)
  })
})
