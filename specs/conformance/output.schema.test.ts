/**
 * Structured output (issue 27, item 4): every tool declares an `outputSchema` in tools/list, which is what its
 * `structuredContent` holds — each action's success, the truncation envelope an answer over the bound becomes, and the
 * error envelope (clients built on the TypeScript SDK 1.x validate error results too, so an error must match as well).
 * The conformance harness has the SDK client check every answer against it (specs/support/mcpHarness.ts, `ok`); this
 * file proves the schema is tight enough to be worth checking: an answer with a field it does not declare, or a field
 * of another type, is rejected by the SDK's own validator. Over stdio and HTTP.
 */
import { join } from 'node:path'
import { AjvJsonSchemaValidator } from '@modelcontextprotocol/sdk/validation/ajv'
import type { Tool } from '@modelcontextprotocol/sdk/types.js'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { TRANSPORTS, envelope, folder, ok, open, plain, removeAll, rig, type Rig, type Transport } from '../support/conformance.js'

const TOOLS = ['session', 'workspace', 'document', 'workflow', 'selection', 'comments', 'browser', 'browser_read', 'coherence', 'coherence_resolve']

describe.each<Transport>(TRANSPORTS)('outputSchema over %s', (transport) => {
  let r: Rig
  let w: string
  let tools: Map<string, Tool>
  const validator = new AjvJsonSchemaValidator()
  const check = (tool: string, value: unknown) => validator.getValidator(tools.get(tool)!.outputSchema as never)(value)

  beforeAll(async () => {
    w = await folder('outschema', { 'a.md': '# A\n\nalpha\n' })
    r = await rig(transport, { workspaces: [w] })
    tools = new Map((await r.session.client.listTools()).tools.map((tool) => [tool.name, tool]))
  })
  afterAll(async () => {
    await r?.close()
    await removeAll(w)
  })

  it('ISSUE27.4 every tool declares an outputSchema, an object schema', () => {
    expect([...tools.keys()]).toEqual(TOOLS)
    for (const tool of tools.values()) {
      expect(tool.outputSchema, tool.name).toBeDefined()
      expect(tool.outputSchema!.type, tool.name).toBe('object')
    }
  })

  it('ISSUE27.4 an answer matches its tool\'s schema; the same answer with a field the schema does not declare, or a field of another type, does not', async () => {
    const tabId = await open(r.session, join(w, 'a.md'))
    const answer = ok(await r.session.call('document', { action: 'read', tabId }))
    expect(check('document', answer).valid).toBe(true)
    expect(check('document', { ...answer, surprise: true }).valid).toBe(false)
    expect(check('document', { ...answer, dirty: 'no' }).valid).toBe(false)
    const { revision: _revision, ...withoutRevision } = answer
    expect(check('document', withoutRevision).valid).toBe(false)
    const state = ok(await r.session.call('session', { action: 'get_state' }))
    expect(check('session', state).valid).toBe(true)
    expect(check('session', { ...state, windows: [{ ...state.windows[0], tabs: [{ id: tabId }] }] }).valid).toBe(false)
  })

  it('ISSUE27.4 error envelopes and the truncation envelope match the schema too; plain-string errors carry no structured content', async () => {
    const refused = envelope(await r.session.call('document', { action: 'read', tabId: 'tab-nope' }), 'INVALID_TAB')
    expect(check('document', refused).valid).toBe(true)
    plain(await r.session.call('document', { action: 'write', tabId: 'tab-nope' }))
    const truncation = { truncated: true, truncation_note: 'note', bytes_total: 90_000, bytes_shown: 74_000, preview: '{' }
    for (const tool of TOOLS) expect(check(tool, truncation).valid, tool).toBe(true)
    expect(check('workspace', { ...truncation, bytes_total: 'many' }).valid).toBe(false)
  })
})
