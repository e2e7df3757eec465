/**
 * Child process that opens the engine on the data directory argv[2], prints `ready <pid>` and holds the directory
 * until its stdin closes (or it gets SIGTERM), then closes the engine and exits 0.
 */
import { openEmbeddedEngine } from '../../adapters/leveldb/embeddedEngine.js'

const home = process.argv[2]
if (!home) throw new Error('usage: holdEngine HOME')
const engine = await openEmbeddedEngine(home)
process.stdout.write(`ready ${process.pid}\n`)

let closing = false
const release = async (): Promise<void> => {
  if (closing) return
  closing = true
  await engine.close()
  process.exit(0)
}
process.stdin.on('end', () => void release())
process.stdin.on('close', () => void release())
process.stdin.resume()
process.on('SIGTERM', () => void release())
