/**
 * Issue 11, finding 8: a save killed after its rename and before its record left the file holding the revision Quire
 * was saving. On the next start the disk sync must recognise those bytes as Quire's own save (the document stays
 * dirty when it moved on since), never as another program's edit: no divergence, and the next save is an ordinary
 * one. The crash is simulated exactly where it hurts: the file system writes the file, then the save dies before it
 * returns, so nothing is recorded; the process is then closed and opened again on the same data directory.
 */
import { readFile } from 'node:fs/promises'
import { join } from 'node:path'
import { setTimeout as sleep } from 'node:timers/promises'
import { afterAll, describe, expect, it } from 'vitest'
import { USER } from '../../core/events/actor.js'
import type { FileSystemPort } from '../../core/files/port.js'
import { openWorkspaceAsPerson } from '../../core/workspace/commands.js'
import { createFileSystem } from '../../adapters/host/fileSystem.js'
import { openQuire, type Quire } from '../../adapters/host/quire.js'
import { folder, PERSON, removeAll } from '../support/conformance.js'
import { tempDir } from '../support/mcpHarness.js'

describe('a save killed between its rename and its record', () => {
  const cleanup: string[] = []
  afterAll(async () => removeAll(...cleanup))

  it('SAVE.CRASH the restarted daemon takes the file for its own save: not diverged, still dirty, and the next save writes', async () => {
    const home = await tempDir('quire-crash-save-')
    const w = await folder('crashsave', { 'a.md': 'original\n' })
    cleanup.push(home, w)
    const real = createFileSystem(home)
    let crashAfterWrite = false
    let release: (() => void) | undefined
    let written: (() => void) | undefined
    const reachedWrite = new Promise<void>((resolve) => (written = resolve))
    const fileSystem: FileSystemPort = {
      ...real,
      async writeAtomic(path, content) {
        if (!crashAfterWrite) return real.writeAtomic(path, content)
        await new Promise<void>((resolve) => {
          release = resolve
          written?.()
        })
        await real.writeAtomic(path, content)
        // The process dies here: the file is renamed into place, the save's record never happens.
        throw new Error('killed between the rename and the record')
      },
    }
    const first: Quire = await openQuire(home, { fileSystem, watchDisk: false })
    const { engine, files, workspace } = first.services
    await openWorkspaceAsPerson(engine.store, engine.views.workspace, w, USER)
    const { tabId } = await files.open(join(w, 'a.md'), undefined, PERSON)
    const docId = workspace.state.tabs.get(tabId)!.docId
    await engine.commands.documents.write({ docId, content: 'saved by the killed save\n', actor: USER })
    crashAfterWrite = true
    const saving = files.save(tabId, PERSON).catch((error: unknown) => error)
    await reachedWrite
    // The person keeps typing while the file is written: the document moves past the revision being saved.
    await engine.commands.documents.write({ docId, content: 'saved by the killed save\nand typed after\n', actor: USER })
    release!()
    expect(await saving).toBeInstanceOf(Error)
    await first.close()
    expect(await readFile(join(w, 'a.md'), 'utf8')).toBe('saved by the killed save\n')

    const second = await openQuire(home, { watchDisk: true })
    try {
      const document = (await second.services.engine.documents.get(docId))!
      // The disk sync looks at the file of the open tab once it starts; wait for its verdict (a save mark).
      const deadline = Date.now() + 20_000
      while (document.saved?.sha256 !== (await import('node:crypto')).createHash('sha256').update('saved by the killed save\n').digest('hex')) {
        if (Date.now() > deadline) throw new Error(`the restarted daemon never recognised its own save (divergence: ${JSON.stringify(document.divergence)})`)
        await sleep(25)
      }
      expect(document.divergence).toBeNull()
      expect(document.dirty).toBe(true)
      expect(document.content).toBe('saved by the killed save\nand typed after\n')
      const saved = await second.services.files.save(tabId, PERSON)
      expect(saved.filePath).toBe(join(w, 'a.md'))
      expect(await readFile(join(w, 'a.md'), 'utf8')).toBe('saved by the killed save\nand typed after\n')
      expect(document.dirty).toBe(false)
    } finally {
      await second.close()
    }
  })
})
