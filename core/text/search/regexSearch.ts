import { Worker } from 'node:worker_threads'
import { QuireError } from '../../errors.js'
import { compilePattern, type TextMatch } from './textSearch.js'

/** How long a regular expression may run over one text before it is stopped. */
export const REGEX_TIME_LIMIT_MS = 1_000

/**
 * The worker that runs patterns, as plain JavaScript (a worker runs no TypeScript, and this keeps it one file with its
 * caller). It answers the starts and lengths of the matches in `[from, to)`, at most `limit`; an empty match moves
 * on by one character (a whole surrogate pair under the `u` flag).
 */
const WORKER_SOURCE = `
const { parentPort } = require('node:worker_threads')
parentPort.on('message', ({ id, text, source, flags, from, to, limit }) => {
  parentPort.postMessage({ id, started: true })
  try {
    const pattern = new RegExp(source, flags)
    pattern.lastIndex = from
    const found = []
    for (let match = pattern.exec(text); match !== null && match.index < to && found.length < 2 * limit; match = pattern.exec(text)) {
      found.push(match.index, match[0].length)
      if (match[0].length === 0) {
        const code = text.charCodeAt(match.index)
        pattern.lastIndex = match.index + (pattern.unicode && code >= 0xd800 && code <= 0xdbff ? 2 : 1)
      }
    }
    parentPort.postMessage({ id, found })
  } catch (error) {
    parentPort.postMessage({ id, error: String(error && error.message || error) })
  }
})
`

interface Answer {
  readonly id: number
  /** The worker took the search up: its time limit runs from here. */
  readonly started?: true
  readonly found?: number[]
  readonly error?: string
}

/**
 * How long a worker may take to start and take a search up (loading a thread is slow on a busy machine); this is not
 * the pattern's time, which is counted from when it starts.
 */
const WORKER_START_MS = 30_000

/**
 * Regular expressions run on a worker thread with a time limit: a pattern that backtracks without end ((a+)+$ on a
 * long run of a's) would otherwise hold the whole process. Past the limit the worker is stopped (V8 interrupts the
 * match), the search answers TIMEOUT, and the next search starts a fresh worker. The limit counts from when the worker
 * takes the search up, so a thread slow to start on a busy machine is not taken for a runaway pattern. One pattern runs
 * at a time.
 */
class PatternRunner {
  private worker: Worker | undefined
  private turn: Promise<unknown> = Promise.resolve()
  private nextId = 1

  async find(text: string, source: string, from: number, to: number, limit: number, timeLimitMs: number): Promise<TextMatch[]> {
    const pattern = compilePattern(source)
    const run = this.turn.then(() => this.run(text, pattern, from, to, limit, timeLimitMs))
    this.turn = run.catch(() => undefined)
    return run
  }

  private run(text: string, pattern: RegExp, from: number, to: number, limit: number, timeLimitMs: number): Promise<TextMatch[]> {
    const worker = this.live()
    const id = this.nextId++
    return new Promise((resolve, reject) => {
      const finish = (): void => {
        clearTimeout(timer)
        worker.off('message', onMessage)
        worker.off('exit', onExit)
      }
      const onMessage = (answer: Answer): void => {
        if (answer.id !== id) return
        if (answer.started === true) {
          clearTimeout(timer)
          timer = setTimeout(runaway, timeLimitMs)
          return
        }
        finish()
        if (answer.error !== undefined) reject(new QuireError('INVALID_ARGUMENT', `search could not run as a regular expression: ${answer.error}`))
        else resolve(pairs(answer.found ?? []))
      }
      const onExit = (): void => {
        finish()
        reject(new QuireError('INTERNAL', 'the regular expression worker stopped before it answered'))
      }
      const runaway = (): void => {
        finish()
        this.stop(worker)
        reject(
          new QuireError(
            'TIMEOUT',
            `TIMEOUT: the regular expression did not finish within ${timeLimitMs} ms on this text and was stopped; nothing was found. ` +
              'A pattern with nested repetition such as (a+)+ can take exponentially long: simplify it, narrow it with offset/length, or search for a literal text',
          ),
        )
      }
      const unstarted = (): void => {
        finish()
        this.stop(worker)
        reject(new QuireError('INTERNAL', `the regular expression worker did not start within ${WORKER_START_MS} ms`))
      }
      let timer = setTimeout(unstarted, WORKER_START_MS)
      worker.on('message', onMessage)
      worker.on('exit', onExit)
      worker.postMessage({ id, text, source: pattern.source, flags: pattern.flags, from, to, limit })
    })
  }

  private live(): Worker {
    if (this.worker) return this.worker
    const worker = new Worker(WORKER_SOURCE, { eval: true })
    // An idle worker never keeps a process alive.
    worker.unref()
    worker.on('error', () => this.stop(worker))
    worker.on('exit', () => {
      if (this.worker === worker) this.worker = undefined
    })
    this.worker = worker
    return worker
  }

  private stop(worker: Worker): void {
    if (this.worker === worker) this.worker = undefined
    void worker.terminate()
  }
}

function pairs(found: readonly number[]): TextMatch[] {
  const matches: TextMatch[] = []
  for (let index = 0; index + 1 < found.length; index += 2) matches.push({ offset: found[index]!, length: found[index + 1]! })
  return matches
}

const runner = new PatternRunner()

/** The matches of the regular expression `source` (compilePattern) starting in `[from, to)`, at most `limit`. */
export function findPattern(text: string, source: string, from: number, to: number, limit: number, timeLimitMs = REGEX_TIME_LIMIT_MS): Promise<TextMatch[]> {
  return runner.find(text, source, from, to, limit, timeLimitMs)
}
