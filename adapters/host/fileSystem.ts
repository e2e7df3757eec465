import type { CrossNodeTurns } from '../../core/documents/turns.js'
import type { FileSystemPort } from '../../core/files/port.js'
import { createFileExclusive, writeFileAtomic } from '../fs/atomicWrite.js'
import type { PlacedFile } from '../fs/placedFile.js'
import { QuireError } from '../../core/errors.js'
import { createFolder, listFolder, renameEntry } from '../fs/folderEntries.js'
import { isWithin, ownDataForms, PathScope } from '../fs/pathScope.js'
import { readText } from '../fs/readText.js'
import { SaveQueue } from '../fs/saveQueue.js'
import { removeStaleTemps } from '../fs/staleTemps.js'

/**
 * The core's file-system port on the real file system (adapters/fs), with the disk watcher told of Quire's own
 * writes. `dataDirectory` is Quire's home: nothing inside it is ever in scope, whatever workspace contains it.
 */
export function createFileSystem(
  dataDirectory: string,
  announceWrite: (path: string, sha256: string) => void = () => {},
  /** On a log several nodes share: a save holds its file's turn among them, from its queue turn to its end. */
  acrossNodes: () => CrossNodeTurns | undefined = () => undefined,
  /** The write `announceWrite` announced has placed this file: the watcher need not read it back (placedFile.ts). */
  announcePlaced: (path: string, placed: PlacedFile) => void = () => {},
): FileSystemPort {
  const queue = new SaveQueue()
  // Resolved once, at the first check: the directory exists by then (the engine opened its log in it).
  let ownData: string[] | undefined
  // Quire stores roots canonically (workspace roots and folders of open files are real paths).
  const scopeOf = (roots: readonly string[]) => PathScope.canonical(roots, (ownData ??= ownDataForms(dataDirectory)))
  return {
    async resolveInScope(path, roots) {
      return (await scopeOf(roots)).resolveInScope(path)
    },
    async listFolder(path, roots) {
      const scope = await scopeOf(roots)
      const folder = await scope.resolveInScope(path)
      const listing = await listFolder(folder.real, (entry) => scope.resolveInScope(entry))
      return { path: folder.real, ...listing }
    },
    createFolder: (path) => createFolder(path),
    async rename(from, to) {
      if ((ownData ??= ownDataForms(dataDirectory)).some((data) => isWithin(data, from))) {
        throw new QuireError('INVALID_PATH', `${from} holds Quire's own data directory; it is never moved`, { reason: 'quire_data', path: from })
      }
      await renameEntry(from, to)
    },
    async readText(path) {
      return (await readText(path)).text
    },
    async enqueueSave(path, job, atTurn) {
      const turns = acrossNodes()
      let release: (() => Promise<void>) | undefined
      const outcome = turns
        ? await queue.enqueue(
            path,
            async () => {
              try {
                return await job()
              } finally {
                await release?.().catch(() => {})
              }
            },
            {
              atTurn: async (turn) => {
                release = await takeFileTurn(turns, turn.key)
                try {
                  await atTurn()
                } catch (error) {
                  await release().catch(() => {})
                  throw error
                }
              },
            },
          )
        : await queue.enqueue(path, job, { atTurn })
      return outcome.status === 'written' ? { status: 'written', value: outcome.value } : { status: 'superseded' }
    },
    async writeAtomic(path, content) {
      announcePlaced(path, await writeFileAtomic(path, content))
    },
    createExclusive: (path, content) => createFileExclusive(path, content),
    async removeStaleTemps(directory) {
      await removeStaleTemps(directory)
    },
    expectWrite(path, sha256) {
      announceWrite(path, sha256)
    },
  }
}

/** How long a save waits for another node's save of the same file. */
const FILE_TURN_WAIT_MS = 10_000

async function takeFileTurn(turns: CrossNodeTurns, key: string): Promise<() => Promise<void>> {
  let taken: (() => Promise<void>) | undefined
  try {
    taken = await turns.take(`file:${key}`, FILE_TURN_WAIT_MS)
  } catch (error) {
    throw new QuireError('JOURNAL_UNAVAILABLE', `the nodes' shared log cannot be reached, so nothing was written: ${(error as Error).message}`)
  }
  if (!taken) throw new QuireError('WRITE_BUSY', `WRITE_BUSY: another node's save held this file for ${FILE_TURN_WAIT_MS} ms; nothing was written`)
  return taken
}
