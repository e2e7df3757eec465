/**
 * The CLI's stdout and stderr as a Unix tool treats them: when the reader goes away (`quire log | head`), the write
 * fails with EPIPE, and that is the reader saying it has enough, not a failure. Node ignores SIGPIPE, so without
 * this the EPIPE arrives as an unhandled 'error' event and the process dies with a stack trace.
 */

/** Thrown by an output function once its reader closed: the command stops, and `main` ends quietly with status 0. */
export class OutputClosedError extends Error {
  override name = 'OutputClosedError'
  constructor() {
    super('the reader of the output closed it')
  }
}

const closed = new WeakSet<NodeJS.WriteStream>()

/** Makes EPIPE on `stream` mark it closed instead of crashing the process; other write errors still surface. */
export function watchForClosedReader(stream: NodeJS.WriteStream): void {
  stream.on('error', (error: NodeJS.ErrnoException) => {
    if (error.code === 'EPIPE') {
      closed.add(stream)
      return
    }
    throw error
  })
}

/**
 * An output function for a command: `lines` adds a newline to each call, raw writes text as it is. Once the reader
 * closed the stream, `stop` throws OutputClosedError, so a command printing a long listing stops at its next line
 * rather than formatting the rest for nobody; `drop` discards the text (for diagnostics written from callbacks,
 * such as `quire mcp`'s on stderr, where a throw would have no caller to stop).
 */
export function outputTo(stream: NodeJS.WriteStream, mode: 'lines' | 'raw', whenClosed: 'stop' | 'drop'): (text: string) => void {
  return (text: string) => {
    if (closed.has(stream)) {
      if (whenClosed === 'stop') throw new OutputClosedError()
      return
    }
    stream.write(mode === 'lines' ? `${text}\n` : text)
  }
}
