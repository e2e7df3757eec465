/**
 * Tool annotations (TOOLS.md §12.7): ANN.1 (session), ANN.2 (browser_read), ANN.3 (coherence), ANN.4 (browser), ANN.5
 * (coherence_resolve), ANN.6 (workspace, document, workflow, selection, comments), ANN.7 (console_clear lives in
 * browser, resolve in coherence_resolve) and APPR.11 (only the read-only tools may be auto-approved), as a client sees
 * them in tools/list over stdio and HTTP.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { TRANSPORTS, rig, type Rig, type Transport } from '../support/conformance.js'

describe.each<Transport>(TRANSPORTS)('annotations over %s', (transport) => {
  let r: Rig
  let annotations: Map<string, Record<string, unknown> | undefined>
  let actions: Map<string, readonly string[]>

  beforeAll(async () => {
    r = await rig(transport)
    const { tools } = await r.session.client.listTools()
    annotations = new Map(tools.map((tool) => [tool.name, tool.annotations as Record<string, unknown> | undefined]))
    actions = new Map(tools.map((tool) => [tool.name, ((tool.inputSchema.properties as Record<string, { enum?: string[] }>).action?.enum ?? [])]))
  })
  afterAll(async () => {
    await r?.close()
  })

  it('ANN.1 session declares readOnlyHint: true', () => {
    expect(annotations.has('session')).toBe(true)
    expect(annotations.get('session')?.readOnlyHint).toBe(true)
  })

  it.each(['workspace', 'document', 'workflow', 'selection', 'comments'])('ANN.6 %s does not declare readOnlyHint: true', (name) => {
    expect(annotations.has(name)).toBe(true)
    expect(annotations.get(name)?.readOnlyHint).not.toBe(true)
  })

  it('ANN.2 browser_read declares readOnlyHint: true and openWorldHint: true', () => {
    expect(annotations.get('browser_read')).toMatchObject({ readOnlyHint: true, openWorldHint: true, destructiveHint: false })
  })

  it('ANN.4 browser declares readOnlyHint: false and destructiveHint: true', () => {
    expect(annotations.get('browser')).toMatchObject({ readOnlyHint: false, destructiveHint: true })
  })

  it('ANN.7 console_clear lives in browser, not in the read-only browser_read', () => {
    expect(actions.get('browser')).toContain('console_clear')
    expect(actions.get('browser_read')).not.toContain('console_clear')
  })

  it('ANN.3 coherence declares readOnlyHint: true', () => {
    expect(annotations.get('coherence')).toMatchObject({ readOnlyHint: true, destructiveHint: false })
  })

  it('ANN.5 coherence_resolve declares readOnlyHint: false and destructiveHint: true', () => {
    expect(annotations.get('coherence_resolve')).toMatchObject({ readOnlyHint: false, destructiveHint: true })
  })

  it('ANN.7 resolve lives in coherence_resolve, not in the read-only coherence', () => {
    expect(actions.get('coherence_resolve')).toEqual(['resolve'])
    expect(actions.get('coherence')).not.toContain('resolve')
  })

  it('APPR.11 session, browser_read and coherence are the only tools annotated read-only (auto-approvable)', () => {
    const readOnly = [...annotations].filter(([, hints]) => hints?.readOnlyHint === true).map(([name]) => name)
    expect(readOnly.sort()).toEqual(['browser_read', 'coherence', 'session'])
  })
})
