import { mkdir, mkdtemp, realpath, rm, writeFile } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterEach, beforeEach, describe, expect, it } from 'vitest'
import * as Y from 'yjs'
import type { Client } from '@modelcontextprotocol/sdk/client/index.js'
import { openQuire, type Quire } from '../../adapters/host/quire.js'
import { replayDocument } from '../../core/audit/replay.js'
import { USER } from '../../core/events/actor.js'
import { openWorkspaceAsPerson } from '../../core/workspace/commands.js'
import { connectInProcess } from '../support/mcpHarness.js'
import { gatedLog, type GatedLog } from '../support/gatedLog.js'
import { personTypes as typeAsPerson } from '../support/personTypes.js'

/**
 * DOC.WRITE.BASE on one node's own log: the base of a write without `expected_revision` (the text its tab's principal
 * last read or wrote) is in the log, so a restart, an aborted write or a refused one leaves it where the log says,
 * never where the node's memory last put it.
 */
interface Assistant {
  call(tool: string, args: Record<string, unknown>): Promise<{ isError: boolean; structured: Record<string, unknown> | undefined; text: string }>
  close(): Promise<void>
}

async function claude(quire: Quire, connection: string): Promise<Assistant> {
  const { client } = (await connectInProcess(quire.services, connection, 'claude')) as { client: Client }
  return {
    async call(tool, args) {
      const raw = (await client.callTool({ name: tool, arguments: args })) as { isError?: boolean; structuredContent?: Record<string, unknown>; content?: { text?: string }[] }
      return { isError: raw.isError === true, structured: raw.structuredContent, text: raw.content?.[0]?.text ?? '' }
    },
    close: () => client.close(),
  }
}

/** The person types (a peer's update, as the console sends it), and the keystroke is in the log. */
const personTypes = (quire: Quire, docId: string, edit: (text: Y.Text) => void) => typeAsPerson(quire.services.engine, docId, edit, 'console')

describe('DOC.WRITE.BASE on one node', () => {
  let base: string
  let home: string
  let file: string
  let quire: Quire | undefined
  const assistants: Assistant[] = []

  beforeEach(async () => {
    base = await realpath(await mkdtemp(join(tmpdir(), 'quire-write-base-')))
    home = join(base, 'home')
    await mkdir(join(base, 'ws'))
    file = join(base, 'ws', 'notes.md')
    await writeFile(file, 'intro\nold line\n')
  })
  afterEach(async () => {
    await Promise.allSettled(assistants.splice(0).map((assistant) => assistant.close()))
    await quire?.close()
    quire = undefined
    await rm(base, { recursive: true, force: true })
  })

  async function start(options: { openLog?: GatedLog['openLog']; interceptWrite?: (write: () => Promise<void>) => Promise<void>; writeRetryWindowMs?: number } = {}): Promise<Quire> {
    quire = await openQuire(home, { watchDisk: false, ...options })
    return quire
  }

  async function openFile(node: Quire): Promise<{ assistant: Assistant; tabId: string; docId: string }> {
    await openWorkspaceAsPerson(node.services.engine.store, node.services.engine.views.workspace, join(base, 'ws'), USER)
    const assistant = await claude(node, 'c-1')
    assistants.push(assistant)
    const opened = await assistant.call('workspace', { action: 'open', filePath: file })
    expect(opened.isError, opened.text).toBe(false)
    const tabId = opened.structured!.tabId as string
    return { assistant, tabId, docId: node.services.engine.views.workspace.state.tabs.get(tabId)!.docId }
  }

  it('DOC.WRITE.BASE a read before a restart is the base of a write after it: the person\'s line typed after the read survives', async () => {
    const first = await start()
    const { assistant, tabId, docId } = await openFile(first)
    expect((await assistant.call('document', { action: 'read', tabId })).structured).toMatchObject({ content: 'intro\nold line\n' })
    await assistant.close()
    assistants.splice(0)
    await first.close()

    const second = await start()
    await personTypes(second, docId, (text) => text.insert(text.length, 'typed after the read\n'))
    const again = await claude(second, 'c-2')
    assistants.push(again)
    const written = await again.call('document', { action: 'write', tabId, content: 'intro\nnew line\n', save: false })
    expect(written.isError, written.text).toBe(false)
    expect(await replayDocument(second.services.engine, docId, written.structured!.revision as string)).toBe('intro\nnew line\ntyped after the read\n')
  })

  it('DOC.WRITE.BASE a write refused before its journal entry landed moves no base: the next write merges from the read', async () => {
    const log = gatedLog(join(base, 'gated-log'))
    const node = await start({ openLog: log.openLog })
    const { assistant, tabId, docId } = await openFile(node)
    await assistant.call('document', { action: 'read', tabId })
    const release = log.hold()
    const refused = assistant.call('document', { action: 'write', tabId, content: 'lost\n', save: false })
    while (log.waiting === 0) await new Promise((resolve) => setTimeout(resolve, 1))
    release((stream) => stream.startsWith('doc:'))
    const answer = await refused
    expect(answer.isError).toBe(true)
    expect(answer.text).not.toContain('INTERNAL')
    await personTypes(node, docId, (text) => text.insert(0, '# heading\n'))
    const written = await assistant.call('document', { action: 'write', tabId, content: 'intro\nnew line\n', save: false })
    expect(written.isError, written.text).toBe(false)
    expect(await replayDocument(node.services.engine, docId, written.structured!.revision as string)).toBe('# heading\nintro\nnew line\n')
  })

  it('DOC.WRITE.BASE a write whose change the disk refused after its journal entry landed (rolled back) moves no base, and later writes are never INTERNAL', async () => {
    // Batch writes pass while `passing` lasts; once it is used up, each one fails as a full disk's would.
    let passing = Infinity
    const node = await start({
      writeRetryWindowMs: 100,
      interceptWrite: async (write) => {
        if (passing <= 0) throw Object.assign(new Error('ENOSPC: no space left on device (injected)'), { code: 'ENOSPC' })
        passing -= 1
        return write()
      },
    })
    const { assistant, tabId, docId } = await openFile(node)
    await assistant.call('document', { action: 'read', tabId })
    passing = 1
    const refused = await assistant.call('document', { action: 'write', tabId, content: 'intro\nlost\n', save: false })
    passing = Infinity
    expect(refused.isError, refused.text).toBe(true)
    expect(refused.text).toContain('JOURNAL_UNAVAILABLE')
    await personTypes(node, docId, (text) => text.insert(0, '# heading\n'))
    for (const [n, content] of ['intro\nnew line\n', 'intro\nnew line\nmore\n'].entries()) {
      const written = await assistant.call('document', { action: 'write', tabId, content, save: false })
      expect(written.isError, `write ${n}: ${written.text}`).toBe(false)
      expect(await replayDocument(node.services.engine, docId, written.structured!.revision as string)).toBe(`# heading\n${content}`)
    }
  })

  it('DOC.WRITE.BASE a write ABORTED because the person typed while it was recorded moves no base: the next write merges from the read', async () => {
    const log = gatedLog(join(base, 'gated-log'))
    const node = await start({ openLog: log.openLog })
    const { assistant, tabId, docId } = await openFile(node)
    await assistant.call('document', { action: 'read', tabId })
    const release = log.hold()
    const aborted = assistant.call('document', { action: 'write', tabId, content: 'intro\nfirst try\n', save: false })
    while (log.waiting === 0) await new Promise((resolve) => setTimeout(resolve, 1))
    // The person types while the journal entry waits: the write is given up once it lands.
    const typing = personTypes(node, docId, (text) => text.insert(0, '# heading\n'))
    release()
    await typing
    const answer = await aborted
    expect(answer.isError).toBe(true)
    expect(answer.text).toContain('ABORTED')
    const written = await assistant.call('document', { action: 'write', tabId, content: 'intro\nsecond try\n', save: false })
    expect(written.isError, written.text).toBe(false)
    expect(await replayDocument(node.services.engine, docId, written.structured!.revision as string)).toBe('# heading\nintro\nsecond try\n')
  })
})
