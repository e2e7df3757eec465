/**
 * Arguments are checked strictly (issue 12 item 4, ERR.3): a name a tool does not define is a plain-string error that
 * names it, the closest accepted name when there is one, and every accepted name — never dropped. Dropping it made
 * `document.write {tabid, content}` write into whatever tab the person had focused. Each refusal changes nothing:
 * windows, tabs, every tab's text and revision, the files on disk and the log are as before. The advertised
 * `inputSchema` is untouched by this (surface.test.ts compares it with the recording).
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { TRANSPORTS, folder, logHead, ok, open, plain, read, removeAll, rig, world, type Rig, type Transport } from '../support/conformance.js'

const ACCEPTS = {
  session: 'session accepts: action.',
  workspace: 'workspace accepts: action, tabId, windowLabel, kind, filePath, folderPath, force.',
  document: 'document accepts: action, tabId, content, edits, dry_run, kind, expected_revision, save, addresses, offset, length, outline, search, regex.',
  workflow: 'workflow accepts: action, tabId, patches, expected_revision, addresses.',
  selection: 'selection accepts: action, tabId, content, expected_revision, addresses.',
  comments: 'comments accepts: action, tabId, cursor, commentId, body, expectedCommentGen.',
}

const WORKFLOW = 'name: CI\non:\n  push:\n    branches: [main]\njobs:\n  build:\n    runs-on: ubuntu-latest\n    steps:\n      - run: echo hi\n'

describe.each<Transport>(TRANSPORTS)('unknown arguments over %s', (transport) => {
  let r: Rig
  let w: string
  let focused: string
  let other: string
  let workflow: string

  beforeAll(async () => {
    w = await folder('strict', { 'focused.md': 'the focused tab\n', 'other.md': 'the other tab\n', '.github/workflows/ci.yml': WORKFLOW })
    r = await rig(transport, { workspaces: [w] })
    other = await open(r.session, `${w}/other.md`)
    workflow = await open(r.session, `${w}/.github/workflows/ci.yml`)
    focused = await open(r.session, `${w}/focused.md`)
    ok(await r.session.call('workspace', { action: 'switch_tab', tabId: focused }))
  })
  afterAll(async () => {
    await r?.close()
    await removeAll(w)
  })

  /** Calls the tool, expects exactly `message` as a plain-string error, and that nothing changed anywhere. */
  async function refused(tool: string, args: Record<string, unknown>, message: string): Promise<void> {
    const before = await world(r.session, w)
    const head = await logHead(r.home)
    expect(plain(await r.session.call(tool, args))).toBe(message)
    expect(await world(r.session, w)).toEqual(before)
    expect(await logHead(r.home)).toBe(head)
  }

  it('document.write {tabid, content} is refused, naming tabId; neither the focused tab nor the named one is written', async () => {
    const { revision } = await read(r.session, other)
    await refused('document', { action: 'write', tabid: other, content: 'overwritten\n', expected_revision: revision }, `unknown argument tabid; did you mean tabId? ${ACCEPTS.document}`)
    expect((await read(r.session, focused)).content).toBe('the focused tab\n')
    expect((await read(r.session, other)).content).toBe('the other tab\n')
  })

  it('session: an argument get_state does not take', async () => {
    await refused('session', { action: 'get_state', verbose: true }, `unknown argument verbose. ${ACCEPTS.session}`)
  })

  it('workspace: a misspelled filePath opens nothing; a wrongly cased kind creates no tab', async () => {
    await refused('workspace', { action: 'open', filepath: `${w}/other.md` }, `unknown argument filepath; did you mean filePath? ${ACCEPTS.workspace}`)
    await refused('workspace', { action: 'new', Kind: 'yaml-workflow' }, `unknown argument Kind; did you mean kind? ${ACCEPTS.workspace}`)
    await refused('workspace', { action: 'close', tab_id: other, force: true }, `unknown argument tab_id; did you mean tabId? ${ACCEPTS.workspace}`)
  })

  it('document: a camel-cased expected_revision, and several unknown names at once', async () => {
    const { revision } = await read(r.session, other)
    await refused('document', { action: 'write', tabId: other, content: 'x\n', expectedRevision: revision }, `unknown argument expectedRevision; did you mean expected_revision? ${ACCEPTS.document}`)
    await refused(
      'document',
      { action: 'transform', colour: 'red', tabid: other, kind: 'cjk-spacing' },
      `unknown argument colour. unknown argument tabid; did you mean tabId? ${ACCEPTS.document}`,
    )
  })

  it('workflow: patch for patches', async () => {
    const patches = [{ kind: 'workflow.set', path: 'name', value: 'Renamed' }]
    await refused('workflow', { action: 'apply_patch', tabId: workflow, patch: patches }, `unknown argument patch; did you mean patches? ${ACCEPTS.workflow}`)
  })

  it('selection: an abbreviated expected_revision', async () => {
    await refused('selection', { action: 'set', tabId: focused, content: 'x', expected_rev: 'rev-1' }, `unknown argument expected_rev; did you mean expected_revision? ${ACCEPTS.selection}`)
  })

  it('comments: tab_id, and a name that is not an identifier', async () => {
    await refused('comments', { action: 'list', tab_id: focused }, `unknown argument tab_id; did you mean tabId? ${ACCEPTS.comments}`)
    await refused('comments', { action: 'list', 'comment id': 'c1', '': 1 }, `unknown argument "comment id"; did you mean commentId? unknown argument "". ${ACCEPTS.comments}`)
  })

  it('an unknown argument is refused before the arguments are validated (the action is wrong too)', async () => {
    await refused('document', { action: 'delete', tabid: other }, `unknown argument tabid; did you mean tabId? ${ACCEPTS.document}`)
  })

  it('the same calls with the names spelled right are carried out', async () => {
    ok(await r.session.call('session', { action: 'get_state' }))
    const { revision } = await read(r.session, other)
    ok(await r.session.call('document', { action: 'write', tabId: other, content: 'written\n', expected_revision: revision, save: false }))
    expect((await read(r.session, other)).content).toBe('written\n')
    expect((await read(r.session, focused)).content).toBe('the focused tab\n')
  })
})
