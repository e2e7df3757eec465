/**
 * Error shapes (TOOLS.md §12.1, DESIGN §10): ERR.1–4 and ERR.6 over stdio and HTTP, GEN.9 in process (an injected
 * handler failure). On the MCP wire, "`success: false` with a JSON-encoded envelope in `error`" is a tool result with
 * `isError: true` whose text is the envelope's JSON and whose `structuredContent` is the same object; a plain-string
 * error is `isError: true` with non-JSON text and no envelope.
 *
 * ERR.4's plain-string domain code WRITE_BUSY is proven in conc.test.ts (CONC.4).
 */
import { mkdtempSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { createFileSystem } from '../../adapters/host/fileSystem.js'
import type { FileSystemPort } from '../../core/files/port.js'
import {
  TRANSPORTS, envelope, folder, inProcess, logHead, newTab, ok, plain, read, removeAll, rig, world, write,
  type Rig, type Session, type Transport,
} from '../support/conformance.js'

describe.each<Transport>(TRANSPORTS)('error shapes over %s', (transport) => {
  let r: Rig
  let w: string
  let tabId: string
  let revision: string

  beforeAll(async () => {
    w = await folder('err', { 'a.md': 'alpha\n', 'b.md': 'beta\n', 'taken.md': 'taken\n' })
    r = await rig(transport, { workspaces: [w] })
    tabId = ok(await r.session.call('workspace', { action: 'open', filePath: `${w}/a.md` })).tabId
    const old = (await read(r.session, tabId)).revision
    await write(r.session, tabId, 'alpha, second\n')
    revision = old
    const draft = await newTab(r.session)
    await write(r.session, draft, 'unsaved draft\n')
  })
  afterAll(async () => {
    await r?.close()
    await removeAll(w)
  })

  it('ERR.1 ERR.2 a domain error is isError with the JSON envelope {error, message} as text and the same object as structuredContent', async () => {
    const unknownTab = envelope(await r.session.call('document', { action: 'read', tabId: 'tab-nope' }), 'INVALID_TAB')
    expect(Object.keys(unknownTab)).toEqual(expect.arrayContaining(['error', 'message']))
    envelope(await r.session.call('workspace', { action: 'open', filePath: '/etc/hostname' }), 'INVALID_PATH')
    envelope(await r.session.call('workspace', { action: 'save_as', tabId, filePath: `${w}/taken.md` }), 'APPROVAL_REQUIRED')
  })

  it('ERR.2 a STALE envelope carries current_revision, the revision the document has now', async () => {
    const stale = envelope(await r.session.call('document', { action: 'write', tabId, content: 'x\n', expected_revision: revision }), 'STALE')
    expect(stale.current_revision).toBe((await read(r.session, tabId)).revision)
  })

  const argumentErrors: Array<[string, string, Record<string, unknown>]> = [
    ['workspace.open without filePath', 'workspace', { action: 'open' }],
    ['workspace.save_as without filePath', 'workspace', { action: 'save_as' }],
    ['workspace.close without tabId', 'workspace', { action: 'close' }],
    ['workspace.switch_tab without tabId', 'workspace', { action: 'switch_tab' }],
    ['workspace.focus_window without windowLabel', 'workspace', { action: 'focus_window' }],
    ['workspace.open_workspace without folderPath', 'workspace', { action: 'open_workspace' }],
    ['document.write without content', 'document', { action: 'write' }],
    ['a tool call without action', 'document', {}],
    ['an action the tool does not have', 'workspace', { action: 'explode' }],
    ['a number as tabId', 'document', { action: 'read', tabId: 42 }],
    ['a string as save', 'document', { action: 'write', content: 'x', save: 'yes' }],
    ['a string as force', 'workspace', { action: 'close', tabId: 'tab-x', force: 'true' }],
    ['a number as filePath', 'workspace', { action: 'open', filePath: 7 }],
    ['a number as expected_revision', 'document', { action: 'write', content: 'x', expected_revision: 5 }],
    ['an unknown kind for new', 'workspace', { action: 'new', kind: 'rst' }],
  ]
  it.each(argumentErrors)('ERR.3 ERR.4 %s is a plain-string error, never an envelope, and changes nothing', async (_label, tool, args) => {
    const before = await world(r.session, w)
    const head = await logHead(r.home)
    plain(await r.session.call(tool, args))
    expect(await world(r.session, w)).toEqual(before)
    expect(await logHead(r.home)).toBe(head)
  })

  it('ERR.6 rejections documented as "changes nothing" leave document text, revisions, tabs and files untouched', async () => {
    const before = await world(r.session, w)
    const rejections: Array<[string, Record<string, unknown>]> = [
      ['document', { action: 'write', tabId, content: 'stale\n', expected_revision: revision }],
      ['document', { action: 'write', tabId, content: 'lone \udc00 surrogate\n' }],
      ['document', { action: 'write', tabId: 'tab-nope', content: 'nowhere\n' }],
      ['workspace', { action: 'open', filePath: `${w}/missing.md` }],
      ['workspace', { action: 'save_as', tabId, filePath: `${w}/taken.md` }],
      ['workspace', { action: 'save_as', tabId, filePath: '/tmp/outside-the-scope.md' }],
      ['workspace', { action: 'switch_tab', tabId: 'tab-nope' }],
      ['workspace', { action: 'close', tabId: 'tab-nope' }],
      ['document', { action: 'write', tabId, content: 42 }],
    ]
    for (const [tool, args] of rejections) {
      const result = await r.session.call(tool, args)
      expect(result.isError, `${tool} ${JSON.stringify(args)}`).toBe(true)
      expect(await world(r.session, w), `${tool} ${JSON.stringify(args)}`).toEqual(before)
    }
  })
})

describe('GEN.9 an unexpected handler failure (in process)', () => {
  let session: Session
  let w: string
  let broken = false

  beforeAll(async () => {
    w = await folder('internal', { 'a.md': 'alpha\n', 'b.md': 'beta\n' })
    const real = createFileSystem(mkdtempSync(join(tmpdir(), 'quire-fs-home-'))) // a data directory of its own: nothing inside it is in scope
    const fileSystem: FileSystemPort = {
      ...real,
      async readText(path) {
        if (broken) throw new TypeError('Cannot read properties of undefined (reading "length")')
        return real.readText(path)
      },
    }
    session = await inProcess([w], { fileSystem })
  })
  afterAll(async () => {
    await session?.close()
    await removeAll(w)
  })

  it('GEN.9 is reported as an INTERNAL envelope, and the failed open leaves no tab behind', async () => {
    ok(await session.call('workspace', { action: 'open', filePath: `${w}/a.md` }))
    const before = await world(session, w)
    broken = true
    const result = await session.call('workspace', { action: 'open', filePath: `${w}/b.md` })
    broken = false
    envelope(result, 'INTERNAL')
    expect(await world(session, w)).toEqual(before)
  })
})
