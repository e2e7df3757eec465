import { mkdtemp, realpath, rm, writeFile } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterEach, beforeEach, describe, expect, it } from 'vitest'
import { USER } from '../../core/events/actor.js'
import { openWorkspaceAsPerson, type Caller } from '../../core/workspace/commands.js'
import { openQuire, type Quire } from '../../adapters/host/quire.js'
import { McpActivity } from '../../adapters/mcp/activity.js'

const PERSON: Caller = { actor: USER, connection: 'person', principal: null }
const CLAUDE: Caller = { actor: { kind: 'mcp', principal: 'claude', connection: 'mcp-1' }, connection: 'mcp-1', principal: 'claude' }

/** What the console's "who is here" knows of each MCP connection (adapters/mcp/activity.ts). */
describe('MCP activity', () => {
  let base: string
  let quire: Quire

  beforeEach(async () => {
    base = await realpath(await mkdtemp(join(tmpdir(), 'quire-activity-')))
    await writeFile(join(base, 'a.md'), 'A\n')
    await writeFile(join(base, 'b.md'), 'B\n')
    quire = await openQuire(join(base, '.home'), { watchDisk: false })
    await openWorkspaceAsPerson(quire.services.engine.store, quire.services.engine.views.workspace, base, USER)
  })
  afterEach(async () => {
    await quire.close()
    await rm(base, { recursive: true, force: true })
  })

  it('records the tab each call read or wrote: the named one, else the focused one; other tools only as the last call', async () => {
    const { services } = quire
    const a = (await services.files.open(join(base, 'a.md'), undefined, PERSON)).tabId
    const b = (await services.files.open(join(base, 'b.md'), undefined, PERSON)).tabId
    await services.workspace.switchTab(b, PERSON)
    const activity = new McpActivity()
    activity.opened('mcp-1', 'claude', 1000)
    activity.called(CLAUDE, services, 'document', { action: 'read', tabId: a }, 2000)
    expect(activity.list()).toEqual([{ connection: 'mcp-1', principal: 'claude', since: 1000, lastCall: { name: 'document.read', at: 2000 }, lastTab: { tabId: a, op: 'read', at: 2000 } }])
    activity.called(CLAUDE, services, 'document', { action: 'write', content: 'x' }, 3000)
    expect(activity.list()[0]!.lastTab).toEqual({ tabId: b, op: 'write', at: 3000 })
    activity.called(CLAUDE, services, 'session', { action: 'get_state' }, 4000)
    expect(activity.list()[0]).toMatchObject({ lastCall: { name: 'session.get_state', at: 4000 }, lastTab: { tabId: b, op: 'write' } })
    // A tab that does not exist leaves the last one as it was.
    activity.called(CLAUDE, services, 'document', { action: 'read', tabId: 'tab-nope' }, 5000)
    expect(activity.list()[0]!.lastTab).toEqual({ tabId: b, op: 'write', at: 3000 })
    activity.closed('mcp-1')
    expect(activity.list()).toEqual([])
    // A call that was still running when its connection ended does not bring it back.
    activity.called(CLAUDE, services, 'document', { action: 'read', tabId: a }, 6000)
    expect(activity.list()).toEqual([])
  })
})
