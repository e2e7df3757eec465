import { createHash } from 'node:crypto'
import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { setTimeout as sleep } from 'node:timers/promises'
import { FileWatcher } from '../adapters/fs/fileWatcher.js'
import { createFileSystem } from '../adapters/host/fileSystem.js'
import { atomicWriteFsync } from './mcpSupport.js'

/**
 * `node dist/bench/savePath.js [--saves N] [--kib K] [--spacing MS] [--floor]`: the CPU (this process, every thread,
 * user + system) of one save as FileCommands drives it, without the log or the protocol: the host's file-system port
 * (the file's save queue, the scope check at its turn, the atomic write in a verified directory) with a disk watcher
 * on the file that is told of each write, as `quire` wires it. One save at a time, `--spacing` ms apart (0: back to
 * back; a person's saves are far apart, and then every save costs the watcher one look). `--floor`: the same texts
 * written with the floor's atomic write (temp, write, fsync, rename, fsync of the directory) and no watcher. How
 * bench/RESULTS.md "Issue 16: the save path" was measured (issue 16).
 */

const args = process.argv.slice(2)
const option = (name: string, fallback: number): number => {
  const at = args.indexOf(name)
  const value = at === -1 ? fallback : Number(args[at + 1])
  if (!Number.isInteger(value) || value < 0) throw new Error(`${name} must be a whole number, not ${args[at + 1]}`)
  return value
}
const saves = option('--saves', 500)
const kib = option('--kib', 10)
const spacingMs = option('--spacing', 0)
const floor = args.includes('--floor')

const root = await mkdtemp(join(tmpdir(), 'quire-save-path-'))
try {
  const workspace = join(root, 'workspace')
  const home = join(root, 'home')
  await mkdir(workspace)
  await mkdir(home)
  const path = join(workspace, 'doc.md')
  await writeFile(path, 'start\n')
  const reported: string[] = []
  const watcher = new FileWatcher({ onChange: (change) => reported.push(change.path) })
  const fs = createFileSystem(home, (at, sha256) => watcher.expectWrite(at, sha256), () => undefined, (at, placed) => watcher.expectedWriteLanded(at, placed))
  if (!floor) await watcher.add(path)
  let n = 0
  const save = async (): Promise<void> => {
    const text = `${n++} `.padEnd(kib * 1024, 'abcdefgh ')
    if (floor) return atomicWriteFsync(path, Buffer.from(text, 'utf8'))
    const digest = createHash('sha256').update(text, 'utf8').digest('hex')
    const outcome = await fs.enqueueSave(
      path,
      async () => {
        fs.expectWrite(path, digest)
        await fs.writeAtomic(path, text)
      },
      async () => {
        await fs.resolveInScope(path, [workspace])
      },
    )
    if (outcome.status !== 'written') throw new Error('a save of one file at a time was superseded')
  }
  for (let warm = 0; warm < 100; warm++) await save()
  // The watcher's looks at the warm-up's last events, out of the measure.
  await sleep(600)
  const readsBefore = watcher.filesRead
  const cpu = process.cpuUsage()
  for (let done = 0; done < saves; done++) {
    await save()
    if (spacingMs > 0) await sleep(spacingMs)
  }
  // The last look (at most the watcher's 500 ms wait after the last event) inside the measure.
  await sleep(600)
  const used = process.cpuUsage(cpu)
  watcher.close()
  if (reported.length > 0) throw new Error(`the watcher reported ${reported.length} of Quire's own saves as external changes`)
  console.log(
    JSON.stringify({
      mode: floor ? 'floor' : 'port',
      kib,
      spacingMs,
      saves,
      cpuMsPerSave: (used.user + used.system) / 1000 / saves,
      userMsPerSave: used.user / 1000 / saves,
      watcherReads: watcher.filesRead - readsBefore,
    }),
  )
} finally {
  await rm(root, { recursive: true, force: true })
}
