import { readFile, writeFile } from 'node:fs/promises'
import { join } from 'node:path'
import { open, read, write } from './conformance.js'
import type { Daemon } from './mcpHarness.js'

/**
 * The smallest story that leaves a stale edge in a workspace served by a real daemon, told through its public
 * surfaces only: the person turns `trackProvenance` on and saves elena.md in the console (which gives it a
 * `vmark.id`); the agent `claude` reads it over MCP and writes ch3.md (an inferred transformation with elena.md as
 * its input), and so on for each derived chapter asked for; then elena.md changes on disk, so each chapter's edge from
 * it is `version-stale`.
 */
export interface StaleStory {
  readonly elena: string
  /** The agent's token (`quire agent add claude`). */
  readonly token: string
}

export const STORY_FILES = {
  'elena.md': '# Elena\n\nShe is brave.\n',
  'ch3.md': '# Chapter 3\n',
  'ch4.md': '# Chapter 4\n',
}

/** What the assistant writes into each chapter it derives from elena.md. */
const DERIVED: Readonly<Record<string, string>> = {
  'ch3.md': '# Chapter 3\n\nElena fights.\n',
  'ch4.md': '# Chapter 4\n\nElena crosses the river.\n',
}

export async function tellStaleStory(daemon: Daemon, root: string, derived: readonly string[] = ['ch3.md'], agent = 'claude'): Promise<StaleStory> {
  const call = async <T>(path: string, body: unknown): Promise<T> => {
    const response = await fetch(`${daemon.url}${path}`, {
      method: 'POST',
      headers: { authorization: `Bearer ${daemon.token}`, 'content-type': 'application/json' },
      body: JSON.stringify(body),
    })
    const answer = (await response.json()) as T
    if (!response.ok) throw new Error(`${path}: ${response.status} ${JSON.stringify(answer)}`)
    return answer
  }
  const elena = join(root, 'elena.md')
  await call('/admin/settings', { key: 'trackProvenance', value: true })
  const { token } = await call<{ token: string }>('/admin/agents', { name: agent })
  const { tabId } = await call<{ tabId: string }>('/console/api/files/open', { path: elena })
  await call(`/console/api/tabs/${tabId}/save`, {})
  const mcp = await daemon.connect(token)
  try {
    for (const chapter of derived) {
      // An assistant's inputs are its reads since its last write: each chapter is made from a read of its own.
      await read(mcp, await open(mcp, elena))
      await write(mcp, await open(mcp, join(root, chapter)), DERIVED[chapter]!)
    }
  } finally {
    await mcp.close()
  }
  // Another program edits the source; the next breakdown's scan sees it (spec §9.4).
  await writeFile(elena, `${await readFile(elena, 'utf8')}\nShe is afraid of water.\n`)
  return { elena, token }
}
