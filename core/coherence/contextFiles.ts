/**
 * Context pin manifests on disk (VMark coherence format 0, spec §6): one JSON file per context in `.vmark/contexts/`,
 * the only files of `.vmark/` rewritten in place, atomically (temp, fsync, rename). What a manifest means is the
 * projection's business; here a manifest is a JSON object kept whole, so a rewrite preserves every field this build
 * does not know (spec §6, round-trip guarantee).
 */
import { constants } from 'node:fs'
import { readdir, rename } from 'node:fs/promises'
import { QuireError } from '../errors.js'
import { withDirectory, type ConfinedDirectory } from './confined.js'
import { LAYOUT_PARTS, type WorkspaceLayout } from './layout.js'
import { newUuidV7 } from './uuid.js'

export type ContextFile =
  | { readonly file: string; readonly status: 'read'; readonly manifest: Readonly<Record<string, unknown>> }
  | { readonly file: string; readonly status: 'unreadable'; readonly reason: string }

const MANIFEST_NAME = /^[^/\\\0]+\.json$/

/** Every `*.json` in the contexts folder, by file name; none when the folder does not exist. Never through a link. */
export async function readContextFiles(layout: WorkspaceLayout): Promise<ContextFile[]> {
  return (await withDirectory(layout.root, LAYOUT_PARTS.contexts, { create: false }, readManifests)) ?? []
}

async function readManifests(contexts: ConfinedDirectory): Promise<ContextFile[]> {
  const names = (await readdir(contexts.at(''), { withFileTypes: true })).filter((d) => d.isFile() && MANIFEST_NAME.test(d.name)).map((d) => d.name)
  names.sort()
  const files: ContextFile[] = []
  for (const file of names) {
    let value: unknown
    try {
      const handle = await contexts.file(file, constants.O_RDONLY)
      if (handle === undefined) continue
      try {
        value = JSON.parse(await handle.readFile('utf8'))
      } finally {
        await handle.close()
      }
    } catch (error) {
      files.push({ file, status: 'unreadable', reason: (error as Error).message })
      continue
    }
    if (typeof value !== 'object' || value === null || Array.isArray(value)) files.push({ file, status: 'unreadable', reason: 'not a JSON object' })
    else files.push({ file, status: 'read', manifest: value as Record<string, unknown> })
  }
  return files
}

/**
 * Replaces (or creates) `contexts/<file>` atomically with `manifest`. The caller passes the whole manifest it read,
 * changed only where it means to change it, so unknown fields survive. The temp file and the rename go through the
 * folder's descriptor, reached without following a link (confined.ts).
 */
export async function writeContextFile(layout: WorkspaceLayout, file: string, manifest: Readonly<Record<string, unknown>>): Promise<void> {
  if (!MANIFEST_NAME.test(file) || file.startsWith('.')) throw new QuireError('COHERENCE_INVALID_CONTEXT', `a context manifest is a <name>.json file in ${layout.contexts}, got ${JSON.stringify(file)}`)
  if (manifest['format'] !== 0) throw new QuireError('COHERENCE_INVALID_CONTEXT', `context manifests of format ${String(manifest['format'])} are not written by this build (format 0 only)`)
  await withDirectory(layout.root, LAYOUT_PARTS.contexts, { create: true }, async (contexts) => {
    const temp = `.${file}.${newUuidV7()}.tmp`
    const handle = (await contexts.file(temp, constants.O_WRONLY | constants.O_CREAT | constants.O_EXCL, { appending: true }))!
    try {
      await handle.writeFile(`${JSON.stringify(manifest, null, 2)}\n`)
      await handle.sync()
    } finally {
      await handle.close()
    }
    await contexts.verify()
    await rename(contexts.at(temp), contexts.at(file))
    // Best effort: the rename is visible already.
    await contexts.sync()
  })
}
