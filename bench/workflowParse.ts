import { isActionFailure, parseAction } from '../core/browser/workflow/action.js'
import { parseWorkflow } from '../core/browser/workflow/parse.js'
import { fmtMs, fmtRatio, median, now, printTable, sized, type Benchmark, type RunOptions, type TargetResult } from './util.js'

/**
 * The workflow parser on hostile sources of growing size (1 KiB … 64 KiB, the largest source a run accepts), against
 * a linear reference over the same text: `split('\n')` and a charCode scan of every line. Parsing is
 * `parseWorkflow` and then `parseAction` on every `action:` step, what a run does before its first step. The ratio
 * parse / reference is printed per size; a linear parser keeps it flat, a quadratic one (like the regular expression
 * VMark once had for quoted names) multiplies it by 64 from the first size to the last. The target is on that growth,
 * per family: the ratio at 64 KiB ≤ 3× the ratio at the small sizes (the median of 1, 2 and 4 KiB, about 30× for a
 * quadratic scan: one small size alone is at the mercy of a busy machine). A linear parser stays near 1, but not at 1
 * everywhere: 64 KiB of `inputs:` is 13,000 names in a Set, and a
 * Set that size costs up to twice as much per entry as a small one on a busy two-core machine (a plain split + Set
 * of the same list shows the same), which is why the bound is 3 and not 2.
 *
 * Families: VMark's two ReDoS cases (a never-closed run of `\"`; `x:` and then spaces) and their relatives (spaces
 * before a stray character; a closed literal and name made of escapes; runs of `{` that never close a reference; a
 * long `inputs:` list; many short step lines). Each sample repeats the parse until about 4 MiB went through, so small
 * sizes are not lost in timer noise; the two sides alternate per sample; medians.
 *
 * Environment: QUIRE_BENCH_WORKFLOW_RUNS (samples per size and side, default 9). A smoke run: 1 and 4 KiB, 2 samples.
 */

const KIB = 1024
const FULL_SIZES = [1, 2, 4, 8, 16, 32, 64].map((kib) => kib * KIB)
const SMOKE_SIZES = [1, 4].map((kib) => kib * KIB)
const BYTES_PER_SAMPLE = 4 * 1024 * KIB
const HEADER = '---\nsite: bench\ninputs: [a]\n---\n'

/** `head`, whole copies of `piece`, `tail`: at most `size` UTF-16 units (all ASCII here, so bytes too). */
function fill(size: number, head: string, piece: string, tail = ''): string {
  const room = Math.max(0, size - head.length - tail.length)
  return head + piece.repeat(Math.floor(room / piece.length)) + tail
}

/** `inputs: [i0, i1, …]` of distinct names, to about `size`, and one step using none of them. */
function inputsList(size: number): string {
  const head = '---\nsite: bench\ninputs: ['
  const tail = ']\n---\n1. goal: go'
  const names: string[] = []
  let length = head.length + tail.length
  while (length + `i${names.length}, `.length <= size) {
    length += `i${names.length}, `.length
    names.push(`i${names.length}`)
  }
  return head + names.join(', ') + tail
}

interface Family {
  readonly name: string
  readonly build: (size: number) => string
  /** What the parse must say, so the benchmark times the case it names. */
  readonly expect: string
}

const FAMILIES: readonly Family[] = [
  { name: 'unclosed \\" run', build: (size) => fill(size, `${HEADER}1. action: click "`, '\\"'), expect: 'malformed-target' },
  { name: 'escaped literal + name', build: (size) => fill(size, `${HEADER}1. action: type "`, '\\\\\\"\\u00e9', '" into "\\"" (textbox)'), expect: 'type' },
  { name: 'x: then spaces', build: (size) => fill(size, `${HEADER}1. goal: ok\nx:`, ' '), expect: 'malformed-step' },
  { name: 'spaces then !', build: (size) => fill(size, `${HEADER}1. goal: ok\n`, ' ', '!'), expect: 'malformed-step' },
  { name: 'unclosed { runs', build: (size) => fill(size, `${HEADER}1. goal: `, '{a{{_'), expect: 'goal' },
  { name: 'long inputs list', build: inputsList, expect: 'goal' },
  { name: 'many step lines', build: (size) => fill(size, HEADER, '1. action: click "x" (button)\n'), expect: 'click' },
]

/** Parse as a run does: the source, then each action step's text. Returns a short outcome and a number to keep. */
function parse(source: string): { outcome: string; sink: number } {
  const result = parseWorkflow(source)
  if (!result.ok) return { outcome: result.errors[result.errors.length - 1]!.code, sink: result.errors.length }
  let outcome = result.workflow.steps[result.workflow.steps.length - 1]!.kind as string
  let sink = result.warnings.length
  for (const step of result.workflow.steps) {
    if (step.kind !== 'action') continue
    const action = parseAction(step.text)
    outcome = isActionFailure(action) ? action.failure : action.kind
    sink += isActionFailure(action) ? action.message.length : action.kind.length
  }
  return { outcome, sink }
}

/** The linear reference: every line, every unit, looked at once. */
function reference(source: string): number {
  let sum = 0
  for (const line of source.split('\n')) for (let index = 0; index < line.length; index++) sum = (sum + line.charCodeAt(index)) | 0
  return sum
}

let sink = 0

function timeRepeated(body: () => void, repeats: number): number {
  const started = now()
  for (let round = 0; round < repeats; round++) body()
  return (now() - started) / repeats
}

async function run(options: RunOptions): Promise<TargetResult[]> {
  const sizes = options.smoke ? SMOKE_SIZES : FULL_SIZES
  const samples = sized(options, 'QUIRE_BENCH_WORKFLOW_RUNS', 9, 2)
  const targets: TargetResult[] = []
  for (const family of FAMILIES) {
    const rows: string[][] = []
    const ratios: number[] = []
    for (const size of sizes) {
      const source = family.build(size)
      const { outcome } = parse(source)
      if (outcome !== family.expect) throw new Error(`${family.name} at ${size} bytes parsed to ${outcome}, not ${family.expect}`)
      const repeats = options.smoke ? 1 : Math.max(1, Math.round(BYTES_PER_SAMPLE / source.length))
      const parseBody = () => {
        sink += parse(source).sink
      }
      const referenceBody = () => {
        sink += reference(source)
      }
      timeRepeated(parseBody, repeats)
      timeRepeated(referenceBody, repeats)
      const parseMs: number[] = []
      const referenceMs: number[] = []
      for (let sample = 0; sample < samples; sample++) {
        if (sample % 2 === 0) {
          parseMs.push(timeRepeated(parseBody, repeats))
          referenceMs.push(timeRepeated(referenceBody, repeats))
        } else {
          referenceMs.push(timeRepeated(referenceBody, repeats))
          parseMs.push(timeRepeated(parseBody, repeats))
        }
      }
      const ratio = median(parseMs) / median(referenceMs)
      ratios.push(ratio)
      rows.push([`${size / KIB} KiB`, fmtMs(median(referenceMs)), fmtMs(median(parseMs)), fmtRatio(ratio), fmtRatio(ratio / ratios[0]!)])
    }
    printTable(`workflowParse: ${family.name} (per parse, medians of ${samples})`, ['size', 'reference', 'parse', 'ratio', 'vs first size'], rows)
    const small = ratios.slice(0, 3)
    const growth = ratios[ratios.length - 1]! / median(small)
    targets.push({
      benchmark: 'workflowParse',
      name: `${family.name}: ratio at ${sizes[sizes.length - 1]! / KIB} KiB / at ${sizes.slice(0, small.length).map((size) => size / KIB).join('-')} KiB`,
      ratio: growth,
      target: '≤ 3x',
      met: growth <= 3,
    })
  }
  if (sink === 0.5) console.log('(never printed: keeps the results alive)')
  return targets
}

export const workflowParseBenchmark: Benchmark = {
  name: 'workflowParse',
  description: 'workflow source parse time on hostile inputs, 1-64 KiB, against a linear split + scan of the same text',
  run,
}
