import { readFile } from 'node:fs/promises'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { launch, launchInProcess, type Session } from '../support/mcpHarness.js'
import { TRANSPORTS } from '../support/conformance.js'

/**
 * The MCP surface a client sees — the capabilities, every tool's `tools/list` entry, and the plain-string refusals of
 * malformed calls — compared with a recording taken from the server before the tools moved onto defineTool
 * (specs/fixtures/mcp/surface.json). A change to a schema, an annotation, a description or a refusal's text shows
 * up here. The entries are compared as serialized JSON as well, so the order of the advertised properties counts.
 */
interface Surface {
  readonly capabilities: unknown
  readonly tools: readonly unknown[]
  readonly refusals: readonly { tool: string; args: Record<string, unknown>; result: unknown }[]
}

const recorded: Surface = JSON.parse(await readFile(new URL('../fixtures/mcp/surface.json', import.meta.url), 'utf8'))

const launchers: Record<string, () => Promise<Session>> = {
  'in-process': () => launchInProcess(),
  ...Object.fromEntries(TRANSPORTS.map((transport) => [transport, () => launch(transport)])),
}

describe.each(Object.keys(launchers))('the MCP surface over %s', (name) => {
  let session: Session
  beforeAll(async () => {
    session = await launchers[name]!()
  })
  afterAll(async () => {
    await session?.close()
  })

  it('advertises the recorded capabilities', () => {
    expect(session.client.getServerCapabilities()).toEqual(recorded.capabilities)
  })

  it('lists every tool exactly as recorded, property order included', async () => {
    const { tools } = await session.client.listTools()
    expect(tools).toEqual(recorded.tools)
    expect(tools.map((tool) => JSON.stringify(tool))).toEqual(recorded.tools.map((tool) => JSON.stringify(tool)))
  })

  it.each(recorded.refusals.map((refusal) => [`${refusal.tool} ${JSON.stringify(refusal.args)}`, refusal] as const))(
    'refuses %s with the recorded plain string',
    async (_label, refusal) => {
      const { raw } = await session.call(refusal.tool, refusal.args)
      expect(raw).toEqual(refusal.result)
    },
  )
})
