import { mkdtemp, readFile, writeFile } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { describe, expect, it } from 'vitest'
import { appendToView } from '../../core/streams/foldedStream.js'
import { openWorkspaceAsPerson } from '../../core/workspace/commands.js'
import { launchInProcess } from '../support/mcpHarness.js'

describe('JRNL.9 STALE_PARENT', () => {
  it('JRNL.9 CONC.3 a tab whose shared document another window wrote since the tab last read it is refused with STALE_PARENT, changing nothing', async () => {
    const folder = await mkdtemp(join(tmpdir(), 'quire-parent-'))
    const file = join(folder, 'shared.md')
    await writeFile(file, 'base\n')
    const session = await launchInProcess()
    try {
      const { engine } = session.quire.services
      // A second document window, as a person's console would open it.
      await appendToView(engine.store, engine.views.workspace, [{ type: 'window.opened', actor: { kind: 'user' }, data: { label: 'second' } }])
      await openWorkspaceAsPerson(engine.store, engine.views.workspace, folder, { kind: 'user' })
      const inMain = (await session.call('workspace', { action: 'open', filePath: file, windowLabel: 'main' })).structured!.tabId
      const inSecond = (await session.call('workspace', { action: 'open', filePath: file, windowLabel: 'second' })).structured!.tabId
      expect(inMain).not.toBe(inSecond)

      await session.call('document', { action: 'read', tabId: inMain })
      await session.call('document', { action: 'read', tabId: inSecond })
      const fromSecond = await session.call('document', { action: 'write', tabId: inSecond, content: 'second window\n' })
      expect(fromSecond.isError).toBe(false)
      const before = (await session.call('document', { action: 'read', tabId: inSecond })).structured!

      const fromMain = await session.call('document', { action: 'write', tabId: inMain, content: 'main window\n' })
      expect(fromMain.isError).toBe(true)
      expect(fromMain.structured).toMatchObject({ error: 'STALE_PARENT' })
      expect((await session.call('document', { action: 'read', tabId: inSecond })).structured).toEqual(before)
      expect(await readFile(file, 'utf8')).toBe('second window\n')

      // After re-reading, the main window's tab writes on top of what it has now seen.
      await session.call('document', { action: 'read', tabId: inMain })
      const again = await session.call('document', { action: 'write', tabId: inMain, content: 'main window\n' })
      expect(again.isError).toBe(false)
      expect(await readFile(file, 'utf8')).toBe('main window\n')
      // The same window's own later writes are never refused.
      expect((await session.call('document', { action: 'write', tabId: inMain, content: 'main again\n' })).isError).toBe(false)
    } finally {
      await session.close()
    }
  })
})
