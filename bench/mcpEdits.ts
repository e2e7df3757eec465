import { mkdir, writeFile } from 'node:fs/promises'
import { join } from 'node:path'
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js'
import {
  filesystemServerVersion, launchFilesystem, launchQuireStdio, MarkdownText, p50, pooled, REVIEW_BACKLOG_NOTE, timeLoop, type McpConnection, type Series,
} from './mcpSupport.js'
import { fmtInt, fmtMs, fmtRatio, printTable, settle, sized, withTempDir, type Benchmark, type RunOptions, type TargetResult } from './util.js'

/**
 * What an assistant pays to change one sentence of a document (issue 27): the bytes it sends and receives per call
 * (the request's JSON and the whole tool result's, what a model is billed for), and the p50 latency, for Quire's
 * `document.write` with the whole text (`content`), Quire's `document.write` with `edits`, and
 * `@modelcontextprotocol/server-filesystem`'s `edit_file` ({oldText, newText}), in the same run, on the same texts, in
 * alternating rounds. Quire's writes are journaled, applied, saved and recorded with fsyncs before they answer;
 * edit_file writes its temp file and renames it without one (the mcp-filesystem benchmark says more).
 */
const ROUNDS = 2

interface Sizes {
  readonly sizes: readonly number[]
  readonly phaseMs: number
  readonly minCalls: number
}

function sizesFor(options: RunOptions): Sizes {
  return {
    sizes: options.smoke ? [4 * 1024, 16 * 1024] : [10 * 1024, 100 * 1024, 1024 * 1024],
    phaseMs: sized(options, 'QUIRE_BENCH_MCP_MS', 1_500, 150),
    minCalls: sized(options, undefined, 8, 3),
  }
}

const requestBytes = (tool: string, args: Record<string, unknown>): number => Buffer.byteLength(JSON.stringify({ name: tool, arguments: args }), 'utf8')
const resultBytes = (result: CallToolResult): number => Buffer.byteLength(JSON.stringify(result), 'utf8')

/** A text with one sentence in its middle that each round rewrites; the rest stays. */
class SentenceText {
  private serial = 0
  readonly before: string
  readonly after: string

  constructor(size: number, seed: number) {
    const body = new MarkdownText(size, seed).text
    const middle = body.indexOf('\n\n', Math.floor(body.length / 2)) + 2
    this.before = body.slice(0, middle)
    this.after = body.slice(middle)
  }

  sentence(serial = this.serial): string {
    return `The sentence the assistant rewrites is number ${serial}.\n\n`
  }

  get text(): string {
    return this.before + this.sentence() + this.after
  }

  /** The next version: the old sentence and the new one. */
  next(): { old: string; replacement: string; text: string } {
    const old = this.sentence()
    this.serial += 1
    return { old, replacement: this.sentence(), text: this.text }
  }
}

interface Measured {
  readonly series: Series
  readonly bytes: number
}

async function run(options: RunOptions): Promise<TargetResult[]> {
  const { sizes, phaseMs, minCalls } = sizesFor(options)
  console.log(`a one-sentence edit of documents of ${sizes.map((size) => fmtInt(size)).join(', ')} bytes; @modelcontextprotocol/server-filesystem ${filesystemServerVersion()}; ` +
    `${ROUNDS} rounds of ${phaseMs} ms per way per size, alternating`)
  console.log(REVIEW_BACKLOG_NOTE)
  return withTempDir('mcp-edits', async (root) => {
    const quireDir = join(root, 'quire-files')
    const otherDir = join(root, 'other-files')
    await mkdir(quireDir)
    await mkdir(otherDir)
    const quire = await launchQuireStdio(join(root, 'home'), quireDir)
    let other: McpConnection | undefined
    const targets: TargetResult[] = []
    try {
      other = await launchFilesystem(otherDir)
      const filesystem = other
      const rows: string[][] = []
      for (const size of sizes) {
        const quireText = new SentenceText(size, 41)
        const quireEditsText = new SentenceText(size, 43)
        const otherText = new SentenceText(size, 47)
        const wholePath = join(quireDir, `whole-${size}.md`)
        const editsPath = join(quireDir, `edits-${size}.md`)
        const otherPath = join(otherDir, `other-${size}.md`)
        await writeFile(wholePath, quireText.text)
        await writeFile(editsPath, quireEditsText.text)
        await writeFile(otherPath, otherText.text)
        const wholeTab = (await quire.call('workspace', { action: 'open', filePath: wholePath })).tabId as string
        const editsTab = (await quire.call('workspace', { action: 'open', filePath: editsPath })).tabId as string
        await quire.call('document', { action: 'read', tabId: wholeTab })
        await quire.call('document', { action: 'read', tabId: editsTab })

        let bytes = { whole: 0, edits: 0, other: 0 }
        const whole = async () => {
          const args = { action: 'write', tabId: wholeTab, content: quireText.next().text }
          bytes.whole = requestBytes('document', args) + resultBytes(await quire.callRaw('document', args))
        }
        const edits = async () => {
          const { old, replacement } = quireEditsText.next()
          const args = { action: 'write', tabId: editsTab, edits: [{ old_text: old, new_text: replacement }] }
          bytes.edits = requestBytes('document', args) + resultBytes(await quire.callRaw('document', args))
        }
        const editFile = async () => {
          const { old, replacement } = otherText.next()
          const args = { path: otherPath, edits: [{ oldText: old, newText: replacement }] }
          bytes.other = requestBytes('edit_file', args) + resultBytes(await filesystem.callRaw('edit_file', args))
        }
        for (const warm of [whole, edits, editFile]) await timeLoop('warm-up', 100, 3, undefined, warm)
        const series: Record<'whole' | 'edits' | 'other', Series[]> = { whole: [], edits: [], other: [] }
        for (let round = 0; round < ROUNDS; round += 1) {
          const order = round % 2 === 0 ? (['other', 'whole', 'edits'] as const) : (['edits', 'whole', 'other'] as const)
          for (const way of order) {
            await settle()
            const operation = way === 'whole' ? whole : way === 'edits' ? edits : editFile
            series[way].push(await timeLoop(way, phaseMs, minCalls, way === 'other' ? filesystem.pid : quire.pid, operation))
          }
        }
        const measured = (way: 'whole' | 'edits' | 'other', label: string): Measured => ({ series: pooled(label, series[way]), bytes: bytes[way] })
        const wholeRun = measured('whole', 'Quire document.write {content}')
        const editsRun = measured('edits', 'Quire document.write {edits}')
        const otherRun = measured('other', 'server-filesystem edit_file')
        for (const one of [wholeRun, editsRun, otherRun]) {
          rows.push([fmtInt(size), one.series.label, fmtInt(one.bytes), fmtRatio(one.bytes / otherRun.bytes), fmtMs(p50(one.series)), fmtRatio(p50(one.series) / p50(wholeRun.series))])
        }
        const bytesRatio = editsRun.bytes / otherRun.bytes
        const speedRatio = p50(editsRun.series) / p50(wholeRun.series)
        targets.push(
          { benchmark: 'mcp-edits', name: `edits bytes / edit_file bytes (${fmtInt(size)} B)`, ratio: bytesRatio, target: '≤ 1.2x', met: bytesRatio <= 1.2 },
          { benchmark: 'mcp-edits', name: `edits p50 / content write p50 (${fmtInt(size)} B)`, ratio: speedRatio, target: '≤ 1x', met: speedRatio <= 1 },
          { benchmark: 'mcp-edits', name: `for context: edits p50 / edit_file p50 (${fmtInt(size)} B)`, ratio: p50(editsRun.series) / p50(otherRun.series), target: 'none', met: null },
        )
        bytes = { whole: 0, edits: 0, other: 0 }
      }
      printTable('mcp-edits: one sentence changed, per call', ['bytes', 'way', 'sent + received', 'to edit_file', 'p50', 'p50 to content write'], rows)
      console.log('  sent + received: the request ({name, arguments}) and the whole tool result as JSON, the last call of the run.')
      return targets
    } finally {
      await Promise.allSettled([quire.close(), other?.close()])
    }
  })
}

export const mcpEditsBenchmark: Benchmark = {
  name: 'mcp-edits',
  description: 'one-sentence edit of 10 KB, 100 KB, 1 MiB: document.write with content, with edits, and server-filesystem edit_file (bytes and p50)',
  run,
}
