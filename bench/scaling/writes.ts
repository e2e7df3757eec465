import { execFile } from 'node:child_process'
import { promisify } from 'node:util'
import type { ClassicLevel } from 'classic-level'
import { atomicWriteFsync, CLI, timeLoop, type MarkdownText, type McpConnection, type Series } from '../mcpSupport.js'

/**
 * The two timed loops the write curves share (document size, history length): `document.write` over MCP with
 * `save: true`, and its floor, one synced LevelDB put plus one fsync'd atomic write of the same bytes (as
 * bench/mcpWrite.ts defines it).
 */

/** What a file-backed document under test needs between calls. */
export interface WrittenDocument {
  readonly path: string
  readonly tabId: string
  readonly text: MarkdownText
  revision: string
}

export function floorLoop(label: string, ms: number, minCalls: number, db: ClassicLevel<string, Uint8Array>, path: string, text: MarkdownText, counter: { n: number }): Promise<Series> {
  return timeLoop(label, ms, minCalls, undefined, async () => {
    const bytes = Buffer.from(text.change('edit'), 'utf8')
    await db.put(`k${(counter.n++).toString().padStart(10, '0')}`, bytes, { sync: true })
    await atomicWriteFsync(path, bytes)
  })
}

/** `document.write` of an 8-character edit, whole text sent, checked to be applied, durable, saved and journaled. */
export function writeLoop(label: string, ms: number, minCalls: number, quire: McpConnection, document: WrittenDocument): Promise<Series> {
  return timeLoop(label, ms, minCalls, quire.pid, async () => {
    const content = document.text.change('edit')
    const answer = await quire.call('document', { action: 'write', tabId: document.tabId, content, expected_revision: document.revision })
    if (answer.applied !== true || answer.durable !== true || answer.saved !== true || answer.journaled !== 'yes') {
      throw new Error(`document.write did not answer applied, durable, saved and journaled: ${JSON.stringify(answer).slice(0, 500)}`)
    }
    document.revision = answer.revision as string
  })
}

/** Opens `document.path` over MCP and fills in its tab and revision. */
export async function openDocument(quire: McpConnection, path: string, text: MarkdownText): Promise<WrittenDocument> {
  const opened = await quire.call('workspace', { action: 'open', filePath: path })
  const tabId = opened.tabId as string
  const read = await quire.call('document', { action: 'read', tabId })
  return { path, tabId, text, revision: read.revision as string }
}

/** The largest MCP message the write curves send is the 8 MiB text as JSON; the default limit is 4 MiB. */
export const BENCH_MESSAGE_LIMIT = 32 * 1024 * 1024

/** Raises `mcpMessageLimitBytes` of the data directory `home` with `quire settings set`, before a server owns it. */
export async function raiseMessageLimit(home: string): Promise<void> {
  await promisify(execFile)(process.execPath, [CLI, '--home', home, 'settings', 'set', 'mcpMessageLimitBytes', String(BENCH_MESSAGE_LIMIT)])
}
