/**
 * Running an external command with a time limit and an output limit, its input given on stdin, without a shell
 * (arguments are passed as they are). Never rejects: a command that cannot be started, outlives its limit or floods
 * its output comes back as a failure to report.
 *
 * The command runs in its own process group and a time-out kills the whole group: a wrapper script killed alone
 * would leave its children holding the output pipes open, and the call would wait for them. For the same reason the
 * call answers as soon as it kills, without waiting for the pipes to close.
 */
import { spawn } from 'node:child_process'

export const MAX_OUTPUT_BYTES = 32 * 1024 * 1024

export interface BoundedRun {
  readonly command: string
  readonly args: readonly string[]
  readonly input?: string
  readonly env: NodeJS.ProcessEnv
  readonly timeoutMs: number
}

export type BoundedResult =
  | { readonly status: 'exited'; readonly code: number | null; readonly signal: NodeJS.Signals | null; readonly stdout: string; readonly stderr: string }
  | { readonly status: 'failed'; readonly reason: 'spawn' | 'timeout' | 'output'; readonly message: string; readonly code?: string }

export function runBounded(run: BoundedRun): Promise<BoundedResult> {
  return new Promise((resolve) => {
    let settled = false
    const finish = (result: BoundedResult): void => {
      if (settled) return
      settled = true
      clearTimeout(timer)
      resolve(result)
    }
    const child = spawn(run.command, [...run.args], { env: run.env, stdio: ['pipe', 'pipe', 'pipe'], detached: true, windowsHide: true })
    const kill = (): void => {
      try {
        if (child.pid !== undefined) process.kill(-child.pid, 'SIGKILL')
      } catch {
        child.kill('SIGKILL')
      }
      child.stdout.destroy()
      child.stderr.destroy()
    }
    const timer = setTimeout(() => {
      kill()
      finish({ status: 'failed', reason: 'timeout', message: `${run.command} did not finish within ${run.timeoutMs} ms and was killed` })
    }, run.timeoutMs)
    const out: Buffer[] = []
    const err: Buffer[] = []
    let bytes = 0
    const collect = (into: Buffer[]) => (chunk: Buffer) => {
      bytes += chunk.length
      if (bytes > MAX_OUTPUT_BYTES) {
        kill()
        finish({ status: 'failed', reason: 'output', message: `${run.command} wrote more than ${MAX_OUTPUT_BYTES} bytes and was killed` })
        return
      }
      into.push(chunk)
    }
    child.stdout.on('data', collect(out))
    child.stderr.on('data', collect(err))
    child.on('error', (error: NodeJS.ErrnoException) => {
      finish({ status: 'failed', reason: 'spawn', message: `${run.command} could not be run: ${error.message}`, ...(error.code ? { code: error.code } : {}) })
    })
    child.on('close', (code, signal) => {
      finish({ status: 'exited', code, signal, stdout: Buffer.concat(out).toString('utf8'), stderr: Buffer.concat(err).toString('utf8') })
    })
    // A command that exits without reading all of stdin makes the write fail with EPIPE; its exit says what happened.
    child.stdin.on('error', () => undefined)
    child.stdin.end(run.input ?? '')
  })
}
