/**
 * This installation's coherence writer id (VMark coherence format 0, spec §2.2): a UUIDv7 minted once and kept in
 * our data directory, never in a workspace (two clones of one repository are two writers). Created without a race:
 * the id is written to a temp file and hard-linked into place, which fails if another process got there first, in
 * which case that process's id is the one.
 */
import { link, mkdir, open, readFile, unlink } from 'node:fs/promises'
import { join } from 'node:path'
import { QuireError } from '../errors.js'
import { isUuidV7, newUuidV7 } from './uuid.js'

/** The file name VMark uses for the same purpose in its app-data folder. */
export const WRITER_ID_FILE = 'coherence-writer-id'

async function readExisting(path: string): Promise<string | undefined> {
  let text: string
  try {
    text = await readFile(path, 'utf8')
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return undefined
    throw error
  }
  const id = text.trim()
  // A damaged file is reported, never replaced: a new id would orphan every segment the old one wrote.
  if (!isUuidV7(id)) throw new QuireError('COHERENCE_INVALID_WRITER', `${path} does not hold a UUIDv7 writer id (it holds ${JSON.stringify(text.slice(0, 80))})`)
  return id
}

/** Our writer id: the one in `<dataDir>/coherence-writer-id`, or a new one stored there first. */
export async function loadOrCreateWriterId(dataDir: string): Promise<string> {
  const path = join(dataDir, WRITER_ID_FILE)
  const existing = await readExisting(path)
  if (existing !== undefined) return existing
  await mkdir(dataDir, { recursive: true })
  const id = newUuidV7()
  const temp = join(dataDir, `.${WRITER_ID_FILE}.${process.pid}.${id}`)
  const file = await open(temp, 'wx', 0o644)
  try {
    await file.writeFile(`${id}\n`)
    await file.sync()
  } finally {
    await file.close()
  }
  try {
    await link(temp, path)
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error
  } finally {
    await unlink(temp)
  }
  const stored = await readExisting(path)
  if (stored === undefined) throw new QuireError('COHERENCE_INVALID_WRITER', `${path} vanished right after it was written`)
  return stored
}
