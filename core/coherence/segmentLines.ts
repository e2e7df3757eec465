/**
 * The raw lines of a workspace's segment files, exactly as they are on disk, read without following a link
 * (confined.ts): what `quire verify` compares with the lines Quire logged, and what a restart takes back into the log
 * after a crash between the ledger's write and the log's.
 */
import { constants } from 'node:fs'
import { readdir } from 'node:fs/promises'
import { UnsafeLedgerPath, withDirectory } from './confined.js'
import { isSegmentFileName, LAYOUT_PARTS } from './layout.js'

export interface RawSegmentLine {
  readonly segment: string
  /** 1-based. */
  readonly number: number
  readonly text: string
}

/**
 * Every non-empty line of the segments `wanted` picks (all of them by default), in file and line order; undefined
 * when the workspace has no ledger folder. A segment that is a link is refused (UnsafeLedgerPath).
 */
export async function readSegmentLines(root: string, wanted: (segment: string) => boolean = () => true): Promise<RawSegmentLine[] | undefined> {
  return withDirectory(root, LAYOUT_PARTS.ledger, { create: false }, async (ledger) => {
    const lines: RawSegmentLine[] = []
    for (const dirent of (await readdir(ledger.at(''), { withFileTypes: true })).sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0))) {
      if (!isSegmentFileName(dirent.name) || !wanted(dirent.name)) continue
      if (dirent.isSymbolicLink()) throw new UnsafeLedgerPath(root, `${ledger.relative}/${dirent.name}`, 'link')
      if (!dirent.isFile()) continue
      const file = await ledger.file(dirent.name, constants.O_RDONLY)
      if (file === undefined) continue
      try {
        const texts = (await file.readFile('utf8')).split('\n')
        texts.forEach((text, index) => {
          if (text !== '') lines.push({ segment: dirent.name, number: index + 1, text })
        })
      } finally {
        await file.close()
      }
    }
    return lines
  })
}
