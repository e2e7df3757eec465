import { appendFile, chmod, lstat, mkdir, rename, rm, symlink, unlink, utimes, writeFile } from 'node:fs/promises'
import { join } from 'node:path'
import { afterEach, describe, expect, it } from 'vitest'
import { writeFileAtomic } from '../../adapters/fs/atomicWrite.js'
import { sha256Hex } from '../../adapters/fs/contentHash.js'
import { FileWatcher } from '../../adapters/fs/fileWatcher.js'
import { placedFileOf } from '../../adapters/fs/placedFile.js'
import type { FileChange, FileWatcherOptions } from '../../adapters/fs/fileWatcher.js'
import { readText } from '../../adapters/fs/readText.js'
import { sleep, useFsTempDirs, waitFor } from '../support/fsTemp.js'

const newDir = useFsTempDirs()

/** Quiet period after which a change that was going to be reported would have been (debounce is 20 ms here). */
const SETTLE_MS = 200

const watchers: FileWatcher[] = []
afterEach(() => {
  for (const watcher of watchers.splice(0)) watcher.close()
})

function startWatcher(options: Partial<FileWatcherOptions> = {}): { watcher: FileWatcher; changes: FileChange[]; errors: unknown[] } {
  const changes: FileChange[] = []
  const errors: unknown[] = []
  const watcher = new FileWatcher({
    debounceMs: 20,
    rewatchMs: 40,
    onChange: (change) => changes.push(change),
    onError: (error) => errors.push(error),
    ...options,
  })
  watchers.push(watcher)
  return { watcher, changes, errors }
}

const text = (change: FileChange | undefined): string | null =>
  change?.content ? Buffer.from(change.content).toString('utf8') : null

async function fileIn(content = 'original\n'): Promise<{ dir: string; path: string }> {
  const dir = await newDir()
  const path = join(dir, 'doc.md')
  await writeFile(path, content)
  return { dir, path }
}

describe('file watcher (feeds WS.CLOSE.3 DIVERGENT and `disk` events): external changes to open documents are reported', () => {
  it('reports an external edit with the new bytes and their sha256', async () => {
    const { path } = await fileIn()
    const { watcher, changes } = startWatcher()
    await watcher.add(path)
    await writeFile(path, 'edited elsewhere\n')
    await waitFor(() => changes.length > 0, 10_000, 'the edit')
    expect(changes[0]).toMatchObject({ path, state: 'present', sha256: sha256Hex('edited elsewhere\n') })
    expect(text(changes[0])).toBe('edited elsewhere\n')
    await sleep(SETTLE_MS)
    expect(changes).toHaveLength(1)
  })

  it('debounces a burst of writes into one report of the final bytes', async () => {
    const { path } = await fileIn('')
    const { watcher, changes } = startWatcher()
    await watcher.add(path)
    for (let n = 0; n < 10; n++) await appendFile(path, `line ${n}\n`)
    await waitFor(() => changes.length > 0)
    await sleep(SETTLE_MS)
    expect(changes).toHaveLength(1)
    expect(text(changes[0])).toBe(Array.from({ length: 10 }, (_, n) => `line ${n}\n`).join(''))
  })

  it('does not report events that leave the bytes as they were (touch, chmod, rewrite of the same bytes)', async () => {
    const { path } = await fileIn()
    const { watcher, changes } = startWatcher()
    await watcher.add(path)
    await utimes(path, new Date(), new Date())
    await chmod(path, 0o600)
    await writeFile(path, 'original\n')
    await sleep(SETTLE_MS)
    expect(changes).toEqual([])
  })

  it('reports a delete (content null) and a re-creation', async () => {
    const { path } = await fileIn()
    const { watcher, changes } = startWatcher()
    await watcher.add(path)
    await unlink(path)
    await waitFor(() => changes.length === 1, 10_000, 'the delete')
    expect(changes[0]).toEqual({ path, state: 'deleted', content: null, sha256: null })
    await writeFile(path, 'back again\n')
    await waitFor(() => changes.length === 2, 10_000, 'the re-creation')
    expect(text(changes[1])).toBe('back again\n')
  })

  it('reports atomic rename-over saves by other editors (new inode), again and again', async () => {
    const { dir, path } = await fileIn()
    const { watcher, changes } = startWatcher()
    await watcher.add(path)
    for (const version of ['first save\n', 'second save\n', 'third save\n']) {
      await writeFile(join(dir, '.doc.md.swp'), version)
      await rename(join(dir, '.doc.md.swp'), path)
      await waitFor(() => text(changes.at(-1)) === version, 10_000, version)
    }
    expect(changes.map(text)).toEqual(['first save\n', 'second save\n', 'third save\n'])
  })

  it('a file replaced by a symlink is reported as not_a_file, never as the link target’s content', async () => {
    const { dir, path } = await fileIn()
    await mkdir(join(dir, 'out'))
    await writeFile(join(dir, 'out', 'secret.md'), 'secret\n')
    const { watcher, changes } = startWatcher()
    await watcher.add(path)
    await unlink(path)
    await symlink(join(dir, 'out', 'secret.md'), path)
    await waitFor(() => changes.some((change) => change.state === 'not_a_file'), 10_000, 'not_a_file')
    expect(changes.every((change) => change.content === null)).toBe(true)
  })

  it('a baseline hash given at add (from readText) reports a change that happened before the watch started', async () => {
    const { path } = await fileIn()
    const opened = await readText(path)
    await writeFile(path, 'changed between open and watch\n')
    const { watcher, changes } = startWatcher()
    await watcher.add(path, { sha256: opened.sha256 })
    expect(text(changes[0])).toBe('changed between open and watch\n')
  })

  it('stops reporting a file once every add is matched by a remove; close() stops everything', async () => {
    const { dir, path } = await fileIn()
    const other = join(dir, 'other.md')
    await writeFile(other, 'other\n')
    const { watcher, changes } = startWatcher()
    await watcher.add(path)
    await watcher.add(path) // a second document on the same real file
    await watcher.add(other)
    watcher.remove(path)
    await writeFile(path, 'still watched\n')
    await waitFor(() => changes.length === 1)
    watcher.remove(path)
    expect(watcher.paths).toEqual([other])
    await writeFile(path, 'no longer watched\n')
    await writeFile(other, 'other changed\n')
    await waitFor(() => changes.length === 2)
    expect(changes[1]?.path).toBe(other)
    watcher.close()
    await writeFile(other, 'after close\n')
    await sleep(SETTLE_MS)
    expect(changes).toHaveLength(2)
  })
})

describe('file watcher (feeds WS.CLOSE.3): Quire’s own saves are not reported back', () => {
  it('an expected write is absorbed; an external edit right after it is still reported', async () => {
    const { path } = await fileIn()
    const { watcher, changes } = startWatcher()
    await watcher.add(path)
    for (let n = 0; n < 3; n++) {
      const bytes = `quire save ${n}\n`
      watcher.expectWrite(path, sha256Hex(bytes))
      await writeFileAtomic(path, bytes)
    }
    await sleep(SETTLE_MS)
    expect(changes).toEqual([])
    await writeFile(path, 'external after quire\n')
    await waitFor(() => changes.length === 1)
    await sleep(SETTLE_MS)
    expect(changes.map(text)).toEqual(['external after quire\n'])
  })

  it('an external edit racing a Quire save is reported (its hash is not the expected one)', async () => {
    const { path } = await fileIn()
    const { watcher, changes } = startWatcher()
    await watcher.add(path)
    watcher.expectWrite(path, sha256Hex('quire\n'))
    await writeFileAtomic(path, 'quire\n')
    await writeFile(path, 'someone else, immediately\n')
    await waitFor(() => changes.length > 0)
    await sleep(SETTLE_MS)
    expect(changes.map(text)).toEqual(['someone else, immediately\n'])
  })

  it('an expectation expires: the same bytes written externally much later are reported', async () => {
    const { path } = await fileIn()
    const { watcher, changes } = startWatcher({ expectationTtlMs: 50 })
    await watcher.add(path)
    watcher.expectWrite(path, sha256Hex('never written by quire\n'))
    await sleep(100)
    await writeFile(path, 'never written by quire\n')
    await waitFor(() => changes.length === 1)
  })
})

describe('file watcher (feeds WS.CLOSE.3): a save that says what it placed is recognised without reading the file', () => {
  /** Quire's save as the host does it: announced, written atomically, and what it placed handed to the watcher. */
  async function save(watcher: FileWatcher, path: string, bytes: string): Promise<void> {
    watcher.expectWrite(path, sha256Hex(bytes))
    watcher.expectedWriteLanded(path, await writeFileAtomic(path, bytes))
  }

  it('saves that landed are absorbed without a read; an external edit right after them is still reported', async () => {
    const { path } = await fileIn()
    // A look that came before the save said what it placed (its directory's fsync slower than the debounce) would
    // read, rightly: the debounce here outlasts any fsync of a loaded machine.
    const debounceMs = 500
    const { watcher, changes } = startWatcher({ debounceMs, maxWaitMs: 4 * debounceMs })
    await watcher.add(path)
    const readsAtStart = watcher.filesRead
    for (let n = 0; n < 3; n++) {
      await save(watcher, path, `quire save ${n}\n`)
      await sleep(debounceMs + SETTLE_MS)
    }
    expect(changes).toEqual([])
    expect(watcher.filesRead).toBe(readsAtStart)
    await writeFile(path, 'external after quire\n')
    await waitFor(() => changes.length === 1)
    expect(changes.map(text)).toEqual(['external after quire\n'])
  })

  it('an in-place write of the same size right after a save is reported (its event, not only its mtime, says so)', async () => {
    const { path } = await fileIn()
    const { watcher, changes } = startWatcher()
    await watcher.add(path)
    await save(watcher, path, 'quire, 16 bytes\n')
    // Same length, same inode, well within one tick of the file system's clock.
    await writeFile(path, 'other, 16 bytes\n', { flag: 'r+' })
    await waitFor(() => changes.length > 0)
    await sleep(SETTLE_MS)
    expect(changes.map(text)).toEqual(['other, 16 bytes\n'])
  })

  it('a rename over the saved file and a delete and re-creation of it are reported', async () => {
    const { dir, path } = await fileIn()
    const { watcher, changes } = startWatcher()
    await watcher.add(path)
    await save(watcher, path, 'quire\n')
    await writeFile(join(dir, 'other.tmp'), 'other\n')
    await rename(join(dir, 'other.tmp'), path)
    await waitFor(() => changes.length > 0)
    await sleep(SETTLE_MS)
    expect(changes.map(text)).toEqual(['other\n'])
    await save(watcher, path, 'quire again\n')
    await unlink(path)
    await writeFile(path, 'quire agaiN\n')
    await waitFor(() => changes.length > 1)
    await sleep(SETTLE_MS)
    expect(changes.at(-1)).toMatchObject({ state: 'present', sha256: sha256Hex('quire agaiN\n') })
  })

  it('an evented write that leaves inode, size and mtime as placed (a coarse file-system clock) is read and reported', async () => {
    const { path } = await fileIn()
    const { watcher, changes } = startWatcher()
    await watcher.add(path)
    watcher.expectWrite(path, sha256Hex('quire, 16 bytes\n'))
    await writeFileAtomic(path, 'quire, 16 bytes\n')
    await writeFile(path, 'other, 16 bytes\n', { flag: 'r+' })
    // As a clock of coarse ticks would have it: the placement the save recorded is the inode as it is after the write.
    watcher.expectedWriteLanded(path, placedFileOf(await lstat(path, { bigint: true })))
    await waitFor(() => changes.length > 0)
    expect(changes.map(text)).toEqual(['other, 16 bytes\n'])
  })

  it('a second rename of the name after a save is read and reported, even if the inode and its times look as placed', async () => {
    const { dir, path } = await fileIn()
    const { watcher, changes } = startWatcher()
    await watcher.add(path)
    watcher.expectWrite(path, sha256Hex('quire\n'))
    await writeFileAtomic(path, 'quire\n')
    await writeFile(join(dir, 'other.tmp'), 'other\n')
    await rename(join(dir, 'other.tmp'), path)
    // As an inode number reused by the file that replaced the save's, with the same size and tick, would look.
    watcher.expectedWriteLanded(path, placedFileOf(await lstat(path, { bigint: true })))
    await waitFor(() => changes.length > 0)
    expect(changes.map(text)).toEqual(['other\n'])
  })

  it('a save that did not say what it placed is read, and absorbed by its hash as before', async () => {
    const { path } = await fileIn()
    const { watcher, changes } = startWatcher()
    await watcher.add(path)
    const readsAtStart = watcher.filesRead
    watcher.expectWrite(path, sha256Hex('quire\n'))
    await writeFileAtomic(path, 'quire\n')
    await waitFor(() => watcher.filesRead > readsAtStart)
    await sleep(SETTLE_MS)
    expect(changes).toEqual([])
  })

  it('a touch after a save makes the next look read the file; the unchanged bytes are not reported', async () => {
    const { path } = await fileIn()
    const { watcher, changes } = startWatcher()
    await watcher.add(path)
    await save(watcher, path, 'quire\n')
    await sleep(SETTLE_MS)
    const readsBefore = watcher.filesRead
    await utimes(path, new Date(), new Date())
    await waitFor(() => watcher.filesRead > readsBefore)
    await sleep(SETTLE_MS)
    expect(changes).toEqual([])
  })
})

describe('file watcher (feeds WS.CLOSE.3): robust to its directory going away', () => {
  it('a removed directory reports its files deleted, does not crash, and picks the folder up again', async () => {
    const root = await newDir()
    const dir = join(root, 'project')
    await mkdir(dir)
    const path = join(dir, 'doc.md')
    await writeFile(path, 'original\n')
    const { watcher, changes } = startWatcher()
    await watcher.add(path)
    await rm(dir, { recursive: true })
    await waitFor(() => changes.length === 1, 10_000, 'the delete')
    expect(changes[0]?.state).toBe('deleted')
    await mkdir(dir)
    await writeFile(path, 'recreated\n')
    await waitFor(() => changes.length === 2, 10_000, 'the re-created file')
    expect(text(changes[1])).toBe('recreated\n')
    // And the new directory is really watched, not just polled once.
    await writeFile(path, 'edited in the new folder\n')
    await waitFor(() => changes.length === 3, 10_000, 'an edit in the re-created folder')
    expect(text(changes[2])).toBe('edited in the new folder\n')
  })

  it('a directory moved away and replaced: edits in the new directory are reported, not the moved one’s', async () => {
    const root = await newDir()
    const dir = join(root, 'project')
    await mkdir(dir)
    const path = join(dir, 'doc.md')
    await writeFile(path, 'original\n')
    const { watcher, changes } = startWatcher()
    await watcher.add(path)
    await rename(dir, join(root, 'project.old'))
    await mkdir(dir)
    await writeFile(path, 'in the replacement folder\n')
    await waitFor(() => text(changes.at(-1)) === 'in the replacement folder\n', 10_000, 'the replacement')
    const count = changes.length
    await writeFile(join(root, 'project.old', 'doc.md'), 'in the moved folder\n')
    await writeFile(path, 'edited again\n')
    await waitFor(() => text(changes.at(-1)) === 'edited again\n', 10_000, 'the second edit')
    expect(changes.slice(count).map(text)).toEqual(['edited again\n'])
  })

  it('a file in a directory that does not exist yet is watched once the directory appears', async () => {
    const root = await newDir()
    const path = join(root, 'later', 'doc.md')
    const { watcher, changes, errors } = startWatcher()
    await watcher.add(path, { sha256: null })
    await mkdir(join(root, 'later'))
    await writeFile(path, 'appeared\n')
    await waitFor(() => changes.length === 1, 10_000, 'the new file')
    expect(text(changes[0])).toBe('appeared\n')
    expect(errors).toEqual([])
  })

  it('rejects paths that are not normalised absolute file paths', async () => {
    const { watcher } = startWatcher()
    await expect(watcher.add('relative.md')).rejects.toThrow(TypeError)
    await expect(watcher.add('/tmp/x/../y.md')).rejects.toThrow(TypeError)
  })
})
