import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js'

/**
 * What the browser benchmark asks of each browser it compares (Quire's embedded browser, @playwright/mcp): show a
 * page in its one tab, read it, click the page's counter button, and tell how often it was clicked. Every call that
 * answers an assistant returns the size of that answer.
 */

export interface Answer {
  /** UTF-8 bytes of the text content blocks: what a model is shown of the answer. */
  readonly textBytes: number
  /** UTF-8 bytes of the whole tool result as JSON (text plus structured content), as it crosses the wire. */
  readonly wireBytes: number
  /** The answer was cut to MCP's output bound (Quire's truncation envelope, 75,000 bytes): a preview, not the whole. */
  readonly truncated: boolean
  /** When truncated: the bytes of the whole answer the envelope stands for (its `bytes_total`). */
  readonly bytesTotal?: number
  /** Element refs the text hands the model (`"ref": "e5g1"` in Quire's JSON, `[ref=e5]` in playwright-mcp's YAML). */
  readonly refs: number
}

export interface BrowserSide {
  readonly label: string
  /** The MCP server's pid, for its CPU time (the Chromium it drives is not counted). */
  readonly pid: number | undefined
  /** Loads `url` in the side's tab (opening it on first use) and waits until it has loaded. */
  show(url: string): Promise<void>
  /** The page as the side's read gives it to an assistant (untimed parts none: this is the timed call). */
  read(): Promise<Answer>
  /** Reads the shown page once and keeps the ref of the button named `name` for `click`. */
  aim(name: string): Promise<void>
  /** Clicks the button `aim` found, by its ref. */
  click(): Promise<Answer>
  /** The text of the element with id `id` (untimed; to check the clicks happened). */
  textOf(id: string): Promise<string>
  close(): Promise<void>
}

/** The answer sizes of an MCP tool result. */
export function answerOf(result: CallToolResult): Answer {
  const text = result.content.map((block) => (block.type === 'text' ? block.text : '')).join('')
  const structured = result.structuredContent as Record<string, unknown> | undefined
  return {
    textBytes: Buffer.byteLength(text, 'utf8'),
    wireBytes: Buffer.byteLength(JSON.stringify(result), 'utf8'),
    truncated: structured?.truncated === true && typeof structured.bytes_total === 'number',
    ...(typeof structured?.bytes_total === 'number' ? { bytesTotal: structured.bytes_total } : {}),
    // In a truncation envelope the JSON is escaped inside the preview string: \"ref\": counts as well.
    refs: text.match(/\[ref=|\\?"ref\\?":/g)?.length ?? 0,
  }
}
