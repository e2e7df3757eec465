import { describe, expect, it } from 'vitest'
import { launch, launchInProcess, type Transport } from '../support/mcpHarness.js'

describe.each<Transport>(['stdio', 'http'])('GEN over %s', (transport) => {
  it('GEN.1 lists exactly the ten tools, each with a required action enum and all four annotation hints', async () => {
    const session = await launch(transport)
    try {
      const { tools } = await session.client.listTools()
      expect(tools.map((tool) => tool.name).sort()).toEqual(['browser', 'browser_read', 'coherence', 'coherence_resolve', 'comments', 'document', 'selection', 'session', 'workflow', 'workspace'])
      for (const tool of tools) {
        expect(tool.inputSchema.required).toContain('action')
        expect(Object.keys(tool.annotations ?? {}).sort()).toEqual(['destructiveHint', 'idempotentHint', 'openWorldHint', 'readOnlyHint', 'title'])
      }
      const state = await session.call('session', { action: 'get_state' })
      expect(state.isError).toBe(false)
      expect(state.structured).toMatchObject({ windows: [{ label: 'main', focused: false }] })
    } finally {
      await session.close()
    }
  })
})

describe('in-process harness', () => {
  it('serves the same tools', async () => {
    const session = await launchInProcess()
    try {
      expect((await session.call('session', { action: 'get_state' })).isError).toBe(false)
    } finally {
      await session.close()
    }
  })
})
