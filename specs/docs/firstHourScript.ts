import { spawn, spawnSync, type ChildProcess } from 'node:child_process'
import { existsSync } from 'node:fs'
import { readFile } from 'node:fs/promises'
import { setTimeout as sleep } from 'node:timers/promises'
import { join } from 'node:path'
import { Client } from '@modelcontextprotocol/sdk/client/index.js'
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js'
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js'
import { cliPath, onStdoutLines, runNode, type CliResult } from '../support/cli.js'

/**
 * The first hour of docs/first-hour.md, run for real: the commands a person types (from a fresh folder holding H, the
 * data directory, and W, the workspace) and the MCP calls an assistant makes, each rendered as the fenced blocks the
 * doc shows, normalised so that what changes from run to run (ports, tokens, ids, times, hashes, the folder) reads
 * as a placeholder.
 */

/** One fenced code block: its info string (`sh`, `text`, `json`) and its text without the final newline. */
export interface Block {
  readonly lang: string
  readonly body: string
}

/** What the run saw besides its blocks, for the assertions the blocks cannot make (exit statuses, files). */
export interface Observed {
  readonly blocks: Block[]
  /** Every command that should succeed but did not: its command line, status and stderr. */
  readonly failures: string[]
  readonly firstSaveAsWasError: boolean
  readonly retriedSaveAsWasError: boolean
  readonly serveExit: { code: number | null; signal: NodeJS.Signals | null }
  /** What serve printed (stdout and stderr) besides its two lines at start: nothing, when all goes well. */
  readonly serveOutputAfterStart: string
  readonly portFileLeft: boolean
  /** The raw (un-normalised) text of every block, to check that normalising hid every secret. */
  readonly raw: string
  readonly agentToken: string
  readonly port: number
}

export const NOTES_BEFORE = '# Notes\n\nFirst line.\n'
/** The shell command that makes H (the data directory) and W (the workspace, with one note). */
const SETUP = "mkdir H W && printf '# Notes\\n\\nFirst line.\\n' > W/notes.md"
export const NOTES_AFTER = '# Notes\n\nFirst line.\nA line from the assistant.\n'

const COMMAND_TIMEOUT_MS = 60_000
const SERVE_START_TIMEOUT_MS = 60_000

/** Replaces what differs between runs with the doc's placeholders. `root` is the folder holding H and W. */
export function normalise(text: string, root: string): string {
  return text
    .split(root)
    .join('<dir>')
    .replace(/\bqa_[A-Za-z0-9_-]{32}\b/g, '<token>')
    .replace(/([?&]code=)[A-Za-z0-9_-]+/g, '$1<code>')
    .replace(/127\.0\.0\.1:\d+/g, '127.0.0.1:<port>')
    .replace(/\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d(?:\.\d+)?Z/g, '<time>')
    .replace(/\bprocess \d+/g, 'process <pid>')
    .replace(/\bap-[0-9a-f]{10}\b/g, '<approval-id>')
    .replace(/\btab-[0-9a-f]{10}\b/g, '<tab-id>')
    .replace(/\bwsi-[0-9a-f]{10}\b/g, '<workspace-id>')
    .replace(/\bd-[0-9a-f]{10}\b/g, '<doc-id>')
    .replace(/\bmcp-[0-9a-f]{8}\b/g, '<connection>')
    .replace(/\bsha256 [0-9a-f]+/g, 'sha256 <hash>')
    // A Yjs update's size depends on the random client id's varint length.
    .replace(/\b\d+ B update\b/g, '<n> B update')
}

/** The fenced blocks of a Markdown text, in order. */
export function fencedBlocks(markdown: string): Block[] {
  const blocks: Block[] = []
  const fence = /^```([^\n`]*)\n([\s\S]*?)^```[ \t]*$/gm
  for (const match of markdown.matchAll(fence)) blocks.push({ lang: match[1]!.trim(), body: match[2]!.replace(/\n$/, '') })
  return blocks
}

/** Runs the whole first hour in `root` (an empty folder) and returns what it printed, normalised. */
export async function runFirstHour(root: string): Promise<Observed> {
  const home = join(root, 'H')
  const workspace = join(root, 'W')
  const rawBlocks: Block[] = []
  const failures: string[] = []
  const shell = (line: string): void => void rawBlocks.push({ lang: 'sh', body: `$ ${line}` })
  const printed = (text: string): void => void rawBlocks.push({ lang: 'text', body: text.replace(/\n$/, '') })

  // 0. The folders, made by the shell command the doc shows.
  shell(SETUP)
  const setup = spawnSync('/bin/sh', ['-c', SETUP], { cwd: root, encoding: 'utf8', timeout: COMMAND_TIMEOUT_MS })
  if (setup.status !== 0) throw new Error(`${SETUP}: ${setup.status ?? setup.signal}: ${setup.stderr}`)
  if ((await readFile(join(workspace, 'notes.md'), 'utf8')) !== NOTES_BEFORE) throw new Error(`${SETUP} did not write ${NOTES_BEFORE}`)

  /** Runs `quire ARGS` from `root`, shows the command and (when it prints anything) its output. */
  async function quire(args: string[], shown = args.join(' ')): Promise<CliResult> {
    shell(`quire ${shown}`)
    const result = await runNode(cliPath, args, { cwd: root, env: childEnv(), timeoutMs: COMMAND_TIMEOUT_MS })
    if (result.code !== 0) failures.push(`quire ${args.join(' ')}: ${result.code ?? result.signal}${result.timedOut ? ' (timed out)' : ''}: ${result.stderr}`)
    if (result.stdout !== '') printed(result.stdout)
    return result
  }

  // 1. Start.
  // --workspace takes an absolute path (a relative one is refused), hence the shell's $PWD.
  shell('quire serve --home H --workspace "$PWD/W"')
  const serve = spawn(process.execPath, [cliPath, 'serve', '--home', 'H', '--workspace', workspace], { cwd: root, env: childEnv(), stdio: ['ignore', 'pipe', 'pipe'] })
  let serveStdout = ''
  let serveStderr = ''
  serve.stdout.on('data', (chunk: Buffer | string) => (serveStdout += chunk.toString()))
  serve.stderr.on('data', (chunk: Buffer | string) => (serveStderr += chunk.toString()))
  let client: Client | undefined
  try {
    const serveLines = await firstLines(serve, 2)
    printed(serveLines.join('\n'))
    const portFile = await readPortFile(home, serve)
    const port = Number(portFile.split(':')[0])
    await quire(['status', '--home', 'H'])

    // 2. A token for the assistant.
    const added = await quire(['agent', 'add', '--home', 'H', 'claude'])
    const agentToken = added.stdout.trim()
    await quire(['agent', 'list', '--home', 'H'])

    // 3. The assistant, over MCP (Streamable HTTP, its token as the bearer).
    client = new Client({ name: 'first-hour-assistant', version: '1.0.0' })
    await client.connect(
      new StreamableHTTPClientTransport(new URL(`http://127.0.0.1:${port}/mcp`), {
        requestInit: { headers: { authorization: `Bearer ${agentToken}` } },
      }),
    )
    const connected = client
    async function call(name: string, args: Record<string, unknown>): Promise<CallToolResult> {
      rawBlocks.push({ lang: 'json', body: JSON.stringify({ name, arguments: args }, null, 2) })
      const result = (await connected.callTool({ name, arguments: args }, undefined, { timeout: COMMAND_TIMEOUT_MS })) as CallToolResult
      const first = result.content[0]
      rawBlocks.push({ lang: 'json', body: first?.type === 'text' ? first.text : JSON.stringify(result.content) })
      return result
    }
    await call('session', { action: 'get_state' })
    const opened = await call('workspace', { action: 'open', filePath: join(workspace, 'notes.md') })
    const tabId = (opened.structuredContent as { tabId?: string } | undefined)?.tabId
    if (tabId === undefined) throw new Error(`workspace.open answered no tabId: ${JSON.stringify(opened)}`)
    await call('document', { action: 'read', tabId })
    await call('document', { action: 'write', tabId, content: NOTES_AFTER, save: true })
    const saveAs = { action: 'save_as', tabId, filePath: join(workspace, 'summary.md') }
    const refused = await call('workspace', saveAs)
    const approvalId = (refused.structuredContent as { approvalId?: string } | undefined)?.approvalId
    if (approvalId === undefined) throw new Error(`save_as answered no approvalId: ${JSON.stringify(refused)}`)

    // The person decides.
    await quire(['approvals', '--home', 'H'])
    await quire(['approvals', 'approve', '--home', 'H', approvalId])
    const retried = await call('workspace', saveAs)
    shell('cat W/summary.md')
    printed(await readFile(join(workspace, 'summary.md'), 'utf8'))

    // 4. Audit.
    await quire(['history', '--home', 'H', 'W/summary.md'])
    await quire(['log', '--home', 'H', '--limit', '10'])
    await quire(['log', '--home', 'H', '--since', '10'])
    await quire(['replay', '--home', 'H', '--doc', 'W/summary.md'])
    await quire(['verify', '--home', 'H'])

    await connected.close()
    client = undefined

    // 5. Stop.
    shell('kill -TERM <pid>')
    const exited = waitForExit(serve)
    serve.kill('SIGTERM')
    const serveExit = await exited
    await quire(['status', '--home', 'H'])

    const raw = rawBlocks.map((block) => block.body).join('\n')
    return {
      blocks: rawBlocks.map((block) => ({ lang: block.lang, body: normalise(block.body, root) })),
      failures,
      firstSaveAsWasError: refused.isError === true,
      retriedSaveAsWasError: retried.isError === true,
      serveExit,
      serveOutputAfterStart: serveStdout.slice(serveLines.join('\n').length + 1) + serveStderr,
      portFileLeft: existsSync(join(home, 'port')),
      raw,
      agentToken,
      port,
    }
  } finally {
    await client?.close().catch(() => {})
    if (serve.exitCode === null && serve.signalCode === null) {
      const exited = waitForExit(serve)
      serve.kill('SIGKILL')
      await exited
    }
  }
}

/** The environment of a child: this one's, minus what would point it at another data directory or agent. */
function childEnv(): NodeJS.ProcessEnv {
  const { QUIRE_HOME: _home, QUIRE_TOKEN: _token, ...inherited } = process.env
  return inherited
}

function firstLines(child: ChildProcess, count: number): Promise<string[]> {
  return new Promise((resolve, reject) => {
    const lines: string[] = []
    let stderr = ''
    child.stderr!.on('data', (chunk: Buffer) => (stderr += chunk.toString()))
    const timer = setTimeout(() => reject(new Error(`quire serve printed ${lines.length} lines in ${SERVE_START_TIMEOUT_MS} ms: ${stderr}`)), SERVE_START_TIMEOUT_MS)
    onStdoutLines(child, (line) => {
      lines.push(line)
      if (lines.length === count) {
        clearTimeout(timer)
        resolve(lines)
      }
    })
    child.once('exit', (code, signal) => {
      clearTimeout(timer)
      reject(new Error(`quire serve exited (${code ?? signal}) after ${lines.length} lines: ${stderr}`))
    })
  })
}

/** The port file, which serve writes before it prints its address (so it is there once the lines are). */
async function readPortFile(home: string, serve: ChildProcess): Promise<string> {
  const deadline = Date.now() + SERVE_START_TIMEOUT_MS
  while (Date.now() < deadline) {
    const text = await readFile(join(home, 'port'), 'utf8').catch(() => undefined)
    if (text !== undefined && text.includes(':')) return text.trim()
    if (serve.exitCode !== null) break
    await sleep(50)
  }
  throw new Error('quire serve wrote no port file')
}

function waitForExit(child: ChildProcess): Promise<{ code: number | null; signal: NodeJS.Signals | null }> {
  if (child.exitCode !== null || child.signalCode !== null) return Promise.resolve({ code: child.exitCode, signal: child.signalCode })
  return new Promise((resolve) => child.once('exit', (code, signal) => resolve({ code, signal })))
}
