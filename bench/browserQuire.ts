import { mkdir, readFile } from 'node:fs/promises'
import { join } from 'node:path'
import { setTimeout as sleep } from 'node:timers/promises'
import { Client } from '@modelcontextprotocol/sdk/client/index.js'
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js'
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js'
import { launchDaemon, type Daemon } from './mcpSupport.js'
import { answerOf, type Answer, type BrowserSide } from './browserSide.js'
import { now } from './util.js'

/**
 * Quire's embedded browser for the browser benchmark, through its real MCP surface: `quire serve` in a child process
 * with a fresh data directory, reached over Streamable HTTP with the MCP SDK client (as the other daemon benchmarks
 * are) with an agent's token, as a person sets an assistant up (`quire agent add`); tools `browser` (open, navigate,
 * act) and `browser_read` (read, query, extract).
 *
 * `browser.act` is approval-gated (BR.GEN.7). `aim` grants it up front the way a person would: the first click names
 * the button by role and name, which asks the person; the bench, as the person, approves that request for the whole
 * site while the call waits, through the daemon's approvals API that `quire approvals approve ID --scope site` uses
 * (the port file's token); every later click then goes by ref under that standing grant, which is what the timed
 * loop measures.
 */

/** Quire's side also extracts the shown page as reader-mode Markdown (browser_read.extract). */
export interface QuireSide extends BrowserSide {
  extract(): Promise<Answer & { readonly result: Record<string, unknown> }>
}

interface SnapshotNode {
  readonly role: string
  readonly name: string
  readonly ref: string
}

const structured = (result: CallToolResult): Record<string, unknown> => (result.structuredContent as Record<string, unknown> | undefined) ?? {}

/** The daemon's person-side API (`/admin`, what the `quire` CLI talks to), with the port file's token. */
interface Admin {
  readonly base: URL
  request<T>(method: 'GET' | 'POST', path: string, body?: unknown): Promise<T>
}

async function adminOf(home: string): Promise<Admin> {
  const [port, token] = (await readFile(join(home, 'port'), 'utf8')).trim().split(':') as [string, string]
  const base = new URL(`http://127.0.0.1:${port}`)
  return {
    base,
    async request<T>(method: 'GET' | 'POST', path: string, body?: unknown): Promise<T> {
      const response = await fetch(new URL(`/admin${path}`, base), {
        method,
        headers: { authorization: `Bearer ${token}`, ...(body === undefined ? {} : { 'content-type': 'application/json' }) },
        ...(body === undefined ? {} : { body: JSON.stringify(body) }),
      })
      const text = await response.text()
      if (!response.ok) throw new Error(`${method} /admin${path}: ${response.status} ${text.slice(0, 500)}`)
      return JSON.parse(text) as T
    },
  }
}

/** Waits until the assistant's act request is pending, then approves it for the whole site (scope `site`). */
async function approveSite(admin: Admin): Promise<string> {
  const deadline = now() + 8_000
  let seen: unknown
  while (now() < deadline) {
    const { approvals } = await admin.request<{ approvals: { approvalId: string; kind: string; status: string }[] }>('GET', '/approvals')
    seen = approvals
    const pending = approvals.find((approval) => approval.kind === 'browser_act' && approval.status === 'pending')
    if (pending !== undefined) {
      await admin.request('POST', `/approvals/${encodeURIComponent(pending.approvalId)}/approve?scope=site`)
      return pending.approvalId
    }
    await sleep(20)
  }
  throw new Error(`no browser_act approval was pending within 8 s: ${JSON.stringify(seen).slice(0, 1000)}`)
}

/** An MCP client of the daemon with `token`; `callRaw` throws when a call fails or answers isError. */
async function connectMcp(base: URL, token: string) {
  const transport = new StreamableHTTPClientTransport(new URL('/mcp', base), { requestInit: { headers: { authorization: `Bearer ${token}` } } })
  const client = new Client({ name: 'quire-bench-browser', version: '1.0.0' })
  await client.connect(transport)
  const callRaw = async (tool: string, args: Record<string, unknown>): Promise<CallToolResult> => {
    const result = (await client.callTool({ name: tool, arguments: args }, undefined, { timeout: 30_000 })) as CallToolResult
    if (result.isError) {
      const first = result.content[0]
      throw new Error(`${tool} ${JSON.stringify(args).slice(0, 200)} failed: ${first?.type === 'text' ? first.text.slice(0, 500) : JSON.stringify(result.content)}`)
    }
    return result
  }
  return {
    callRaw,
    call: async (tool: string, args: Record<string, unknown>) => structured(await callRaw(tool, args)),
    async close() {
      await transport.terminateSession().catch(() => {})
      await client.close().catch(() => {})
    },
  }
}

export async function launchQuireBrowser(root: string): Promise<QuireSide> {
  const home = join(root, 'quire-home')
  const workspace = join(root, 'quire-workspace')
  await mkdir(workspace, { recursive: true })
  const daemon: Daemon = await launchDaemon(home, workspace)
  let admin: Admin
  let mcp: Awaited<ReturnType<typeof connectMcp>>
  try {
    admin = await adminOf(home)
    const { token } = await admin.request<{ token: string }>('POST', '/agents', { name: 'bench' })
    mcp = await connectMcp(admin.base, token)
  } catch (error) {
    await daemon.stop()
    throw error
  }
  let tabId: string | undefined
  let ref: string | undefined
  const read = async (): Promise<{ snapshot: SnapshotNode[]; result: CallToolResult }> => {
    const result = await mcp.callRaw('browser_read', { action: 'read', tabId })
    return { snapshot: (structured(result).snapshot as SnapshotNode[] | undefined) ?? [], result }
  }
  return {
    label: 'Quire (quire serve, MCP over HTTP)',
    pid: daemon.pid,
    async show(url) {
      if (tabId === undefined) tabId = (await mcp.call('browser', { action: 'open', url })).tabId as string
      else await mcp.call('browser', { action: 'navigate', tabId, url })
      ref = undefined
    },
    async read() {
      return answerOf((await read()).result)
    },
    async aim(name) {
      // callRaw throws unless the click was granted and done; the person approves while it waits.
      await Promise.all([approveSite(admin), mcp.callRaw('browser', { action: 'act', tabId, operation: 'click', role: 'button', name })])
      const { snapshot } = await read()
      const found = snapshot.filter((node) => node.role === 'button' && node.name === name)
      if (found.length !== 1) throw new Error(`browser_read.read shows ${found.length} buttons named "${name}": ${JSON.stringify(snapshot).slice(0, 1000)}`)
      ref = found[0]!.ref
    },
    async click() {
      if (ref === undefined) throw new Error('aim at a button before clicking')
      return answerOf(await mcp.callRaw('browser', { action: 'act', tabId, operation: 'click', ref }))
    },
    async textOf(id) {
      const answer = await mcp.call('browser_read', { action: 'query', tabId, selector: `#${id}` })
      const elements = (answer.elements as { text: string }[] | undefined) ?? []
      return elements[0]?.text ?? ''
    },
    async extract() {
      const result = await mcp.callRaw('browser_read', { action: 'extract', tabId })
      return { ...answerOf(result), result: structured(result) }
    },
    async close() {
      await mcp.close()
      await daemon.stop()
    },
  }
}
