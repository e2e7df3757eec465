import type { Readable } from 'node:stream'

/**
 * What `quire serve` printed up to and including its console line (printed once the port file is written, so it
 * may come a moment after `launchDaemon` returns).
 */
export function printedUpToConsoleLine(stdout: Readable): Promise<string> {
  return new Promise((resolve, reject) => {
    let text = ''
    stdout.on('data', (chunk: Buffer) => {
      text += chunk.toString()
      if (/^console: \S+$/m.test(text)) resolve(text)
    })
    stdout.once('end', () => reject(new Error(`quire serve printed no console line: ${text}`)))
  })
}
