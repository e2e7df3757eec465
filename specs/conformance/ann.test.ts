/**
 * Tool annotations (TOOLS.md §12.7) for the tools registered so far: ANN.1 (session) and ANN.6 (workspace,
 * document, workflow, selection, comments), as a client sees them in tools/list over
 * stdio and HTTP.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { TRANSPORTS, rig, type Rig, type Transport } from '../support/conformance.js'

describe.each<Transport>(TRANSPORTS)('annotations over %s', (transport) => {
  let r: Rig
  let annotations: Map<string, Record<string, unknown> | undefined>

  beforeAll(async () => {
    r = await rig(transport)
    const { tools } = await r.session.client.listTools()
    annotations = new Map(tools.map((tool) => [tool.name, tool.annotations as Record<string, unknown> | undefined]))
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
})
