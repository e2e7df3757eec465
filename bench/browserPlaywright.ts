import { readFileSync } from 'node:fs'
import { fileURLToPath } from 'node:url'
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js'
import { launchStdio, type McpConnection } from './mcpSupport.js'
import { answerOf, type Answer, type BrowserSide } from './browserSide.js'

/**
 * `@playwright/mcp` over stdio through the MCP SDK client, driving Debian's Chromium (never a downloaded browser):
 * `node node_modules/@playwright/mcp/cli.js --executable-path /usr/bin/chromium --headless --isolated --no-sandbox
 * --output-dir DIR`. --isolated keeps its profile in memory (as Quire's AI tabs are), --no-sandbox is what Quire's
 * engine passes too (Chromium's sandbox needs a user namespace this machine may not give a root process), and
 * --output-dir keeps the snapshot files it writes after each navigation or click out of the working directory.
 */

export const PLAYWRIGHT_MCP = fileURLToPath(new URL('../../node_modules/@playwright/mcp/cli.js', import.meta.url))

export function playwrightMcpVersion(): string {
  const manifest = fileURLToPath(new URL('../../node_modules/@playwright/mcp/package.json', import.meta.url))
  return (JSON.parse(readFileSync(manifest, 'utf8')) as { version: string }).version
}

export interface PlaywrightOptions {
  readonly outputDir: string
  /**
   * --timeout-settle: how long browser_click waits after the click for work it triggered to settle. Its default is
   * 500 ms; undefined keeps the default.
   */
  readonly settleMs?: number
}

function text(result: CallToolResult): string {
  return result.content.map((block) => (block.type === 'text' ? block.text : '')).join('')
}

export async function launchPlaywrightMcp(options: PlaywrightOptions): Promise<BrowserSide> {
  const args = ['--executable-path', '/usr/bin/chromium', '--headless', '--isolated', '--no-sandbox', '--output-dir', options.outputDir]
  if (options.settleMs !== undefined) args.push('--timeout-settle', String(options.settleMs))
  const label = `@playwright/mcp${options.settleMs === undefined ? '' : ` --timeout-settle ${options.settleMs}`}`
  const connection: McpConnection = await launchStdio(PLAYWRIGHT_MCP, args, 'playwright-mcp')
  let target: { ref: string; element: string } | undefined
  return {
    label,
    get pid() {
      return connection.pid
    },
    async show(url) {
      await connection.callRaw('browser_navigate', { url })
      target = undefined
    },
    async read(): Promise<Answer> {
      return answerOf(await connection.callRaw('browser_snapshot', {}))
    },
    async aim(name) {
      const snapshot = text(await connection.callRaw('browser_snapshot', {}))
      const escaped = name.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')
      const ref = new RegExp(`button "${escaped}" \\[ref=(\\w+)\\]`).exec(snapshot)?.[1]
      if (ref === undefined) throw new Error(`browser_snapshot shows no button "${name}":\n${snapshot.slice(0, 2000)}`)
      target = { ref, element: `${name} button` }
    },
    async click(): Promise<Answer> {
      if (!target) throw new Error('aim at a button before clicking')
      return answerOf(await connection.callRaw('browser_click', { element: target.element, target: target.ref }))
    },
    async textOf(id) {
      const answer = text(await connection.callRaw('browser_evaluate', { function: `() => document.getElementById(${JSON.stringify(id)})?.textContent ?? null` }))
      // The answer is Markdown with the result as JSON under "### Result".
      const match = /### Result\s*\n([^\n]+)/.exec(answer)
      if (!match) throw new Error(`browser_evaluate answered no result: ${answer.slice(0, 500)}`)
      return String(JSON.parse(match[1]!))
    },
    close: () => connection.close(),
  }
}
