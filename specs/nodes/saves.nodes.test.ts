import { mkdtemp, readFile, realpath, rm, writeFile } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterEach, describe, expect, it } from 'vitest'
import { USER } from '../../core/events/actor.js'
import { isQuireError } from '../../core/errors.js'
import { openWorkspaceAsPerson, type Caller } from '../../core/workspace/commands.js'
import { closeNodes, eventually, useNodes } from './support.js'

/**
 * SAVE.3 across nodes sharing one workspace folder (a shared volume): the file never goes back to older content. A
 * node that has not yet heard of another node's later write and save must not write its older revision over it.
 */
const cluster = useNodes()
const folders: string[] = []
afterEach(async () => {
  await closeNodes()
  for (const folder of folders.splice(0)) await rm(folder, { recursive: true, force: true })
})

const caller = (connection: string): Caller => ({ actor: { kind: 'mcp', principal: 'claude', connection }, connection, principal: 'claude' })

describe('saves of one file from two nodes (SAVE.3)', () => {
  it('a save racing another node\'s later write and save either writes the newest text or answers STALE; the file never goes back', async () => {
    const folder = await realpath(await mkdtemp(join(tmpdir(), 'quire-nodes-saves-')))
    folders.push(folder)
    const file = join(folder, 'shared.md')
    await writeFile(file, 'v0\n')
    const [a, b] = await cluster(2)
    await openWorkspaceAsPerson(a!.services.engine.store, a!.services.engine.views.workspace, folder, USER)
    const { tabId } = await a!.services.files.open(file, undefined, caller('c-a'))
    await eventually(() => b!.services.engine.views.workspace.state.tabs.has(tabId))
    const docId = b!.services.engine.views.workspace.state.tabs.get(tabId)!.docId
    await eventually(async () => (await b!.services.engine.documents.get(docId)) !== undefined)
    for (let round = 1; round <= 15; round += 1) {
      await a!.services.documents.write({ docId, content: `v${round}\n`, actor: caller('c-a').actor })
      // B saves at once, most often before it has heard of A's write: it holds the text of the round before.
      const [onA, onB] = await Promise.allSettled([a!.services.files.save(tabId, caller('c-a')), b!.services.files.save(tabId, caller('c-b'))])
      for (const outcome of [onA, onB]) if (outcome.status === 'rejected') expect(isQuireError(outcome.reason, 'STALE'), String(outcome.reason)).toBe(true)
      expect(onA.status === 'fulfilled' || onB.status === 'fulfilled').toBe(true)
      expect(await readFile(file, 'utf8')).toBe(`v${round}\n`)
    }
  })
})
