import { mkdtemp, writeFile } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { describe, expect, it } from 'vitest'
import { MAX_OUTPUT_BYTES } from '../../adapters/mcp/results.js'
import { launchInProcess } from '../support/mcpHarness.js'

describe('the 75,000-byte output bound (DESIGN §10, research/vmark.md §1.6)', () => {
  it('turns a document.read larger than the bound into the truncation envelope, as text and as structured content', async () => {
    const folder = await mkdtemp(join(tmpdir(), 'quire-bound-'))
    // CJK: three UTF-8 bytes per character, so the bound is in bytes, not characters.
    const content = '中文字符'.repeat(10_000) + '\n'
    await writeFile(join(folder, 'big.md'), content)
    const session = await launchInProcess()
    try {
      const { openWorkspaceAsPerson } = await import('../../core/workspace/commands.js')
      const { engine } = session.quire.services
      await openWorkspaceAsPerson(engine.store, engine.views.workspace, folder, { kind: 'user' })
      const opened = await session.call('workspace', { action: 'open', filePath: join(folder, 'big.md') })
      const read = await session.call('document', { action: 'read', tabId: opened.structured!.tabId })
      expect(read.isError).toBe(false)
      expect(Buffer.byteLength(read.text, 'utf8')).toBeLessThanOrEqual(MAX_OUTPUT_BYTES)
      const envelope = JSON.parse(read.text) as Record<string, unknown>
      expect(envelope).toEqual(read.structured)
      expect(envelope).toMatchObject({ truncated: true })
      expect(envelope.bytes_total).toBeGreaterThan(MAX_OUTPUT_BYTES)
      expect(String(envelope.truncation_note)).toMatch(/do not write back from this read/)
      const preview = envelope.preview as string
      expect(preview.isWellFormed()).toBe(true)
      // The preview is the start of the payload that did not fit, which will not parse.
      expect(preview.startsWith('{\n  "content": "中文字符中文字符')).toBe(true)
      expect(() => JSON.parse(preview)).toThrow()
      expect(preview.length).toBeGreaterThan(10_000)
      expect(envelope.bytes_shown).toBe(Buffer.byteLength(preview, 'utf8'))
    } finally {
      await session.close()
    }
  })

  it('leaves results under the bound untouched', async () => {
    const session = await launchInProcess()
    try {
      const state = await session.call('session', { action: 'get_state' })
      expect(state.structured).toHaveProperty('windows')
      expect(state.structured).not.toHaveProperty('truncated')
    } finally {
      await session.close()
    }
  })
})
