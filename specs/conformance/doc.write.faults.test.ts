/**
 * document.write rules that need an injected fault or a held step (TOOLS.md §4.2): DOC.WRITE.5, .8, .9, .10, .11.
 * In process (the same MCP server behind an in-memory transport), with the real file system wrapped:
 *
 * - a disk that refuses the write with ENOSPC, as a full disk would (DOC.WRITE.8);
 * - a save held at the door of its file's queue while the tab is closed (DOC.WRITE.9);
 * - the queue reporting the save overtaken by a later save of the same file (DOC.WRITE.10): through the real
 *   queue this cannot be provoked from one process, whose tickets follow call order;
 * - no disk watcher, standing for the moment before the watcher has noticed another program's write (DOC.WRITE.5).
 */
import { writeFile } from 'node:fs/promises'
import { mkdtempSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { createFileSystem } from '../../adapters/host/fileSystem.js'
import type { FileSystemPort } from '../../core/files/port.js'
import { bytes, folder, inProcess, ok, read, removeAll, world, write, type Session } from '../support/conformance.js'

type Fault = 'none' | 'enospc' | 'hold' | 'superseded'

describe('document.write with an injected file-system fault (in process)', () => {
  let session: Session
  let w: string
  let fault: Fault = 'none'
  let held: { reached: Promise<void>; release: () => void } | undefined
  let reached: () => void = () => {}

  beforeAll(async () => {
    w = await folder('faults', { 'a.md': 'alpha\n', 'b.md': 'beta\n', 'c.md': 'gamma\n', 'd.md': 'delta\n' })
    const real = createFileSystem(mkdtempSync(join(tmpdir(), 'quire-fs-home-'))) // a data directory of its own: nothing inside it is in scope
    const fileSystem: FileSystemPort = {
      ...real,
      async writeAtomic(path, content) {
        if (fault === 'enospc') throw Object.assign(new Error(`ENOSPC: no space left on device, write '${path}'`), { code: 'ENOSPC', errno: -28, syscall: 'write' })
        return real.writeAtomic(path, content)
      },
      async enqueueSave(path, job, atTurn) {
        if (fault === 'superseded') return { status: 'superseded' }
        if (fault === 'hold' && held) {
          reached()
          await held.reached
        }
        return real.enqueueSave(path, job, atTurn)
      },
    }
    session = await inProcess([w], { fileSystem, watchDisk: false })
  })
  afterAll(async () => {
    fault = 'none'
    await session?.close()
    await removeAll(w)
  })

  const open = async (path: string) => ok(await session.call('workspace', { action: 'open', filePath: path })).tabId as string

  it('DOC.WRITE.8 DOC.WRITE.11 when the disk refuses the write (ENOSPC), the write stays applied and answers saved: false with save_error, no journaled; the file keeps its bytes', async () => {
    const tabId = await open(`${w}/a.md`)
    fault = 'enospc'
    const result = await session.call('document', { action: 'write', tabId, content: 'alpha, disk full\n' })
    fault = 'none'
    const written = ok(result)
    expect(written).toMatchObject({ applied: true, saved: false })
    expect(written.save_error).toBeTypeOf('string')
    expect(written.save_error.length).toBeGreaterThan(0)
    expect('journaled' in written).toBe(false)
    expect(await bytes(`${w}/a.md`)).toBe('alpha\n')
    expect(await read(session, tabId)).toMatchObject({ content: 'alpha, disk full\n', revision: written.revision, dirty: true })
  })

  it('DOC.WRITE.9 DOC.WRITE.11 a tab closed after the write changed it but before its save ran: saved: false, save_error says it was closed, nothing written to its file', async () => {
    const tabId = await open(`${w}/b.md`)
    let release!: () => void
    const gate = new Promise<void>((resolve) => (release = resolve))
    const arrived = new Promise<void>((resolve) => (reached = resolve))
    held = { reached: gate, release }
    fault = 'hold'
    const writing = session.call('document', { action: 'write', tabId, content: 'beta, never to be saved\n' })
    await arrived
    expect(ok(await session.call('workspace', { action: 'close', tabId, force: true }))).toEqual({ closed: true })
    release()
    const written = ok(await writing)
    fault = 'none'
    held = undefined
    expect(written).toMatchObject({ applied: true, saved: false })
    expect(written.save_error).toMatch(/clos/i)
    expect('journaled' in written).toBe(false)
    expect(await bytes(`${w}/b.md`)).toBe('beta\n')
  })

  it('DOC.WRITE.10 DOC.WRITE.11 when a later save already wrote the file, the write answers saved: false with save_error and writes nothing', async () => {
    const tabId = await open(`${w}/c.md`)
    const before = await bytes(`${w}/c.md`)
    fault = 'superseded'
    const result = await session.call('document', { action: 'write', tabId, content: 'gamma, overtaken\n' })
    fault = 'none'
    const written = ok(result)
    expect(written).toMatchObject({ applied: true, saved: false })
    expect(written.save_error).toBeTypeOf('string')
    expect('journaled' in written).toBe(false)
    expect(await bytes(`${w}/c.md`)).toBe(before)
  })

  it('DOC.WRITE.5 a write answering saved: true leaves its content in the file, even when the tab already held that text and another program changed the file', async () => {
    const tabId = await open(`${w}/d.md`)
    await writeFile(`${w}/d.md`, 'delta, rewritten by another program\n')
    const before = await world(session, w)
    const written = await write(session, tabId, 'delta\n')
    if (written.saved === true) {
      expect(await bytes(`${w}/d.md`)).toBe('delta\n')
    } else {
      // Not saving is allowed only when the response says why; then nothing may have changed.
      expect(written.save_error ?? written.save_skipped).toBeDefined()
      expect(await world(session, w)).toEqual(before)
    }
  })
})
