import { join } from 'node:path'
import { extractArticle } from '../adapters/browser/extract.js'
import { articlePage, bigPage, COUNTER_BUTTON, COUNTER_ID, servePages, smallPage } from './browserPages.js'
import { launchPlaywrightMcp, playwrightMcpVersion } from './browserPlaywright.js'
import { readabilityTurndown } from './browserReference.js'
import { launchQuireBrowser, type QuireSide } from './browserQuire.js'
import type { Answer, BrowserSide } from './browserSide.js'
import { cpuPerOp, p50, p99, pooled, timeLoop, type Series } from './mcpSupport.js'
import { fmtInt, fmtMs, fmtRatio, median, now, printTable, settle, sized, withTempDir, type Benchmark, type RunOptions, type TargetResult } from './util.js'

/**
 * Quire's embedded browser against `@playwright/mcp` driving the same Debian Chromium, on the same loopback pages,
 * in the same run:
 *
 * 1. read: Quire's `browser_read.read` against playwright-mcp's `browser_snapshot`, on a small page and on a big one
 *    (well over 1,000 elements): p50, p99 and the bytes of the answer.
 * 2. click: Quire's `browser.act click` against `browser_click` on the same button, by a ref from a read, with
 *    Quire's act granted for the page's site up front: p50, p99 and answer bytes. playwright-mcp is measured as
 *    shipped (after a click it waits up to 500 ms for the work it triggered to settle) and with that wait off.
 * 3. extract: Quire's `browser_read.extract` of a ~1 MB article against @mozilla/readability + turndown called
 *    directly (linkedom DOM) on the same HTML in this process. Quire's extractor alone (adapters/browser/extract.ts,
 *    in this process on the same HTML) is measured too, to tell the extractor's cost from the capture's and MCP's.
 *
 * Each timed series alternates between the sides in rounds (the order flips every round); a read or click answer's
 * size is the median over the calls.
 */

interface Sizes {
  readonly phaseMs: number
  readonly rounds: number
  readonly warmupMs: number
  readonly warmupCalls: number
  readonly minCalls: number
  /** Clicks per series at least: playwright-mcp's default click takes over half a second. */
  readonly minClicks: number
  readonly bigRows: number
  readonly articleBytes: number
}

function sizesFor(options: RunOptions): Sizes {
  return {
    phaseMs: sized(options, 'QUIRE_BENCH_BROWSER_MS', 3_000, 1),
    rounds: sized(options, undefined, 2, 1),
    // A smoke run warms nothing up: its figures mean nothing anyway, and each call is a second of CI.
    warmupMs: sized(options, undefined, 500, 0),
    warmupCalls: sized(options, undefined, 3, 0),
    minCalls: sized(options, undefined, 20, 1),
    minClicks: sized(options, undefined, 30, 1),
    bigRows: sized(options, undefined, 300, 40),
    articleBytes: sized(options, undefined, 1_000_000, 30_000),
  }
}

const READ_TARGET = 1
const CLICK_TARGET = 1
const EXTRACT_TARGET = 1.2

/** A timed series and the answers its calls gave. */
interface Measured {
  readonly series: Series
  readonly answers: readonly Answer[]
}

/** The median sizes of `answers`; truncated when any of them was. */
function medianAnswer(answers: readonly Answer[]): Answer | undefined {
  if (answers.length === 0) return undefined
  return {
    textBytes: median(answers.map((answer) => answer.textBytes)),
    wireBytes: median(answers.map((answer) => answer.wireBytes)),
    truncated: answers.some((answer) => answer.truncated),
    refs: median(answers.map((answer) => answer.refs)),
    ...(answers[0]!.bytesTotal !== undefined ? { bytesTotal: answers[0]!.bytesTotal } : {}),
  }
}

interface Contender {
  readonly label: string
  readonly pid: number | undefined
  call(): Promise<Answer | void>
}

async function measure(contender: Contender, ms: number, minCalls: number): Promise<Measured> {
  const answers: Answer[] = []
  const series = await timeLoop(contender.label, ms, minCalls, contender.pid, async () => {
    const answer = await contender.call()
    if (answer) answers.push(answer)
  })
  return { series, answers }
}

/** Runs `rounds` rounds of one series per contender, their order flipping every round; pools each one's series. */
async function alternate(sizes: Sizes, contenders: readonly Contender[], minCalls = sizes.minCalls): Promise<Measured[]> {
  for (const contender of contenders) await timeLoop('warm-up', sizes.warmupMs, sizes.warmupCalls, undefined, async () => void (await contender.call()))
  await settle()
  const parts: Measured[][] = contenders.map(() => [])
  for (let round = 0; round < sizes.rounds; round++) {
    const order = contenders.map((_, index) => index)
    if (round % 2 === 1) order.reverse()
    for (const index of order) {
      parts[index]!.push(await measure(contenders[index]!, sizes.phaseMs, minCalls))
      await settle()
    }
  }
  return parts.map((measured, index) => ({
    series: pooled(contenders[index]!.label, measured.map((part) => part.series)),
    answers: measured.flatMap((part) => part.answers),
  }))
}

const HEADERS = ['run', 'calls', 'p50', 'p99', 'p50 ratio', 'p99 ratio', 'text bytes', 'wire bytes', 'refs', 'server CPU/call']

function rows(measured: readonly Measured[], reference: Measured): string[][] {
  return measured.map(({ series, answers }) => {
    const answer = medianAnswer(answers)
    return [
      series.label,
      fmtInt(series.latencies.length),
      fmtMs(p50(series)),
      fmtMs(p99(series)),
      fmtRatio(p50(series) / p50(reference.series)),
      fmtRatio(p99(series) / p99(reference.series)),
      answer ? `${fmtInt(answer.textBytes)}${answer.truncated ? ' (truncated)' : ''}` : '-',
      answer ? fmtInt(answer.wireBytes) : '-',
      answer ? fmtInt(answer.refs) : '-',
      cpuPerOp(series.serverCpuMs, series.latencies.length),
    ]
  })
}

function latencyTargets(what: string, quire: Measured, other: Measured, target: number, judged = true): TargetResult[] {
  const result = (name: string, ratio: number, limit: number, strict = false): TargetResult => ({
    benchmark: 'browser',
    name: `${what}: ${name}`,
    ratio,
    target: judged ? `${strict ? '<' : '≤'} ${limit.toFixed(1)}x` : 'none',
    met: judged ? (strict ? ratio < limit : ratio <= limit) : null,
  })
  const targets = [result('p50', p50(quire.series) / p50(other.series), target), result('p99', p99(quire.series) / p99(other.series), target)]
  const quireAnswer = medianAnswer(quire.answers)
  const otherAnswer = medianAnswer(other.answers)
  if (quireAnswer && otherAnswer) {
    const ratio = quireAnswer.textBytes / otherAnswer.textBytes
    // An answer cut to the output bound is smaller only because most of it is missing: that never meets the target.
    if (quireAnswer.truncated) targets.push({ ...result('answer text bytes (Quire\'s truncated)', ratio, 1, true), met: judged ? false : null })
    else targets.push(result('answer text bytes', ratio, 1, true))
  }
  return targets
}

async function run(options: RunOptions): Promise<TargetResult[]> {
  const sizes = sizesFor(options)
  const version = playwrightMcpVersion()
  const pages = { small: smallPage(), big: bigPage(sizes.bigRows), article: articlePage(sizes.articleBytes) }
  const elements = (html: string) => fmtInt(html.match(/<[a-z]/g)?.length ?? 0)
  console.log(
    `@playwright/mcp ${version} and Quire on /usr/bin/chromium (headless); pages on loopback: small ${fmtInt(pages.small.length)} bytes ` +
      `(${elements(pages.small)} elements), big ${fmtInt(pages.big.length)} bytes (${sizes.bigRows} rows, ${elements(pages.big)} elements), ` +
      `article ${fmtInt(pages.article.length)} bytes (${elements(pages.article)} elements); ` +
      `${sizes.rounds} round(s) of ${sizes.phaseMs} ms per side`,
  )
  return withTempDir('browser', async (root) => {
    const server = await servePages({ '/small': pages.small, '/big': pages.big, '/article': pages.article })
    const sides: BrowserSide[] = []
    try {
      const launched = now()
      const [quire, playwright, playwrightNoSettle] = await Promise.all([
        launchQuireBrowser(root),
        launchPlaywrightMcp({ outputDir: join(root, 'playwright-out') }),
        launchPlaywrightMcp({ outputDir: join(root, 'playwright-out-nosettle'), settleMs: 0 }),
      ])
      sides.push(quire, playwright, playwrightNoSettle)
      console.log(`the three servers started (in parallel, each with its Chromium) in ${fmtMs(now() - launched)}`)
      const targets: TargetResult[] = []

      // 1. read, on the small page and on the big one.
      for (const page of ['small', 'big'] as const) {
        await Promise.all([quire.show(server.url(`/${page}`)), playwright.show(server.url(`/${page}`))])
        const [quireRead, playwrightRead] = await alternate(sizes, [
          { label: `${quire.label}: read`, pid: quire.pid, call: () => quire.read() },
          { label: `${playwright.label}: browser_snapshot`, pid: playwright.pid, call: () => playwright.read() },
        ])
        printTable(`browser: reading the ${page} page`, HEADERS, rows([playwrightRead!, quireRead!], playwrightRead!))
        const quireAnswer = medianAnswer(quireRead!.answers)
        if (quireAnswer?.truncated) {
          console.log(
            `  Quire's read answered MCP's truncation envelope: the whole answer (JSON, pretty-printed) is ${fmtInt(quireAnswer.bytesTotal ?? Number.NaN)} ` +
              `bytes, over the 75,000-byte bound; the preview hands over ${fmtInt(quireAnswer.refs)} refs and does not parse as JSON`,
          )
        }
        targets.push(...latencyTargets(`read ${page} page`, quireRead!, playwrightRead!, READ_TARGET))
      }

      // 2. extract the article; the reference works on the HTML the server sends.
      await quire.show(server.url('/article'))
      let quireExtracted: Record<string, unknown> = {}
      let referenceMarkdown = ''
      const [quireExtract, referenceExtract, extractorOnly] = await alternate(sizes, [
        {
          label: `${quire.label}: extract`, pid: quire.pid,
          call: async () => {
            const answer = await quire.extract()
            quireExtracted = answer.result
            return answer
          },
        },
        {
          label: 'readability + turndown on the HTML (in process)', pid: undefined,
          call: async () => {
            referenceMarkdown = readabilityTurndown(pages.article, server.url('/article'))
          },
        },
        {
          label: 'Quire\'s extractArticle on the HTML (in process, no browser, no MCP)', pid: undefined,
          call: async () => {
            if (extractArticle(pages.article, server.url('/article'), []) === null) throw new Error('extractArticle found no article')
          },
        },
      ])
      printTable(
        `browser: extracting a ${fmtInt(pages.article.length)}-byte article`,
        HEADERS,
        rows([referenceExtract!, extractorOnly!, quireExtract!], referenceExtract!),
      )
      console.log(describeExtracted(quireExtracted, referenceMarkdown))
      const extractRatio = p50(quireExtract!.series) / p50(referenceExtract!.series)
      targets.push({ benchmark: 'browser', name: 'extract p50 / readability + turndown p50', ratio: extractRatio, target: `≤ ${EXTRACT_TARGET}x`, met: extractRatio <= EXTRACT_TARGET })
      // 3. click the counter button of the small page, by ref; the counter must show every click.
      const clickers = [quire, playwright, playwrightNoSettle]
      await Promise.all(clickers.map(async (side) => {
        await side.show(server.url('/small'))
        await side.aim(COUNTER_BUTTON)
      }))
      // aim's first click (the one the person approved) already counted; the counters start from what they show now.
      const before = await Promise.all(clickers.map((side) => side.textOf(COUNTER_ID)))
      const clicked = clickers.map((_, index) => Number(before[index]))
      const clicks = await alternate(
        sizes,
        clickers.map((side, index) => ({
          label: `${side.label}: click`, pid: side.pid,
          call: async () => {
            const answer = await side.click()
            clicked[index]!++
            return answer
          },
        })),
        sizes.minClicks,
      )
      for (const [index, side] of clickers.entries()) {
        const shown = await side.textOf(COUNTER_ID)
        if (shown !== String(clicked[index])) throw new Error(`${side.label}: the counter shows ${shown} after ${clicked[index]} clicks`)
      }
      printTable(`browser: clicking the "${COUNTER_BUTTON}" button by ref`, HEADERS, rows([clicks[1]!, clicks[2]!, clicks[0]!], clicks[1]!))
      targets.push(...latencyTargets('click vs browser_click', clicks[0]!, clicks[1]!, CLICK_TARGET))
      targets.push(...latencyTargets('click vs browser_click --timeout-settle 0', clicks[0]!, clicks[2]!, CLICK_TARGET, false))

      return targets
    } finally {
      await Promise.allSettled(sides.map((side) => side.close()))
      await server.close()
    }
  })
}

/**
 * What Quire's extract answered, against the reference's Markdown; throws unless it holds the whole article. An
 * answer over MCP's 75,000-byte bound arrives as the truncation envelope: then the payload it counted must be at
 * least the reference's Markdown, and its preview must start the article.
 */
function describeExtracted(quire: Record<string, unknown>, reference: string): string {
  const sections = [...reference.matchAll(/^## (Section \d+):/gm)].map((match) => match[1]!)
  if (sections.length === 0) throw new Error(`the reference Markdown has no sections: ${reference.slice(0, 300)}`)
  if (typeof quire.markdown === 'string') {
    const markdown = quire.markdown
    for (const section of [sections[0]!, sections.at(-1)!]) {
      if (!markdown.includes(`## ${section}:`)) throw new Error(`Quire's extract lacks "${section}": ${markdown.slice(0, 300)}`)
    }
    return `  Markdown: Quire ${fmtInt(markdown.length)} characters (${markdown === reference ? 'the same as' : 'not the same as'} the reference's ${fmtInt(reference.length)})`
  }
  if (quire.truncated !== true || typeof quire.bytes_total !== 'number' || typeof quire.preview !== 'string') {
    throw new Error(`Quire's extract answered neither Markdown nor a truncation envelope: ${JSON.stringify(quire).slice(0, 500)}`)
  }
  if (quire.bytes_total < reference.length || !quire.preview.includes(`## ${sections[0]!}:`)) {
    throw new Error(`Quire's truncated extract does not hold the article: ${quire.bytes_total} bytes in all, preview ${quire.preview.slice(0, 300)}`)
  }
  return (
    `  Quire's answer is MCP's truncation envelope: the extract's JSON is ${fmtInt(quire.bytes_total)} bytes, over the 75,000-byte ` +
    `bound, so it carries a ${fmtInt(quire.preview.length)}-character preview; the reference's Markdown is ${fmtInt(reference.length)} characters`
  )
}

export const browserBenchmark: Benchmark = {
  name: 'browser',
  description: 'browser_read.read / browser.act click / extract vs @playwright/mcp browser_snapshot / browser_click and readability+turndown',
  run,
}
