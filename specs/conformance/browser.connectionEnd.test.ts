/**
 * Whose browser tabs outlive a connection: an assistant with an agent token keeps its tabs across its connections
 * (they are the principal's), while a connection without one (an anonymous client, the person's own token) has tabs
 * and a cookie store of its own, which end with it instead of waiting for the browser's idle stop.
 */
import { mkdtemp, rm } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import type { Client } from '@modelcontextprotocol/sdk/client/index.js'
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { openQuire, type Quire } from '../../adapters/host/quire.js'
import { serveFixtureSite, type FixtureSite } from '../browser-engine/support/fixtureSite.js'
import { connectInProcess } from '../support/mcpHarness.js'

let quire: Quire
let home: string
let site: FixtureSite

beforeAll(async () => {
  home = await mkdtemp(join(tmpdir(), 'quire-browser-conn-'))
  quire = await openQuire(home)
  site = await serveFixtureSite()
})
afterAll(async () => {
  await quire?.close()
  await site?.close()
  await rm(home, { recursive: true, force: true })
})

async function connect(connection: string, principal: string | null): Promise<{ client: Client; close(): Promise<void> }> {
  const { client } = await connectInProcess(quire.services, connection, principal)
  return { client, close: () => client.close() }
}

async function openTab(client: Client): Promise<string> {
  const result = (await client.callTool({ name: 'browser', arguments: { action: 'open', url: site.url('/index.html') } })) as CallToolResult
  expect(result.isError, JSON.stringify(result.content)).toBeFalsy()
  return (result.structuredContent as { tabId: string }).tabId
}

const tabIds = async (): Promise<string[]> => (await quire.services.browser.listTabs()).map((tab) => tab.tabId)

describe('browser tabs and the connection that opened them', () => {
  it('a connection without an agent token: its tabs close when it ends', async () => {
    const anonymous = await connect('conn-anon', null)
    const tabId = await openTab(anonymous.client)
    expect(await tabIds()).toContain(tabId)
    await anonymous.close()
    await expect.poll(tabIds).not.toContain(tabId)
  })

  it('an agent\'s tabs are its principal\'s: they stay when one of its connections ends, for its next one', async () => {
    const first = await connect('conn-claude-1', 'claude')
    const tabId = await openTab(first.client)
    await first.close()
    const second = await connect('conn-claude-2', 'claude')
    const read = (await second.client.callTool({ name: 'browser_read', arguments: { action: 'read', tabId } })) as CallToolResult
    expect(read.isError, JSON.stringify(read.content)).toBeFalsy()
    await second.client.callTool({ name: 'browser', arguments: { action: 'close', tabId } })
    await second.close()
  })
})
