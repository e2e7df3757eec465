import { basename, dirname, sep } from 'node:path'
import type { DocumentKind } from './events.js'

/** A GitHub Actions workflow lives at `.github/workflows/*.yml|yaml`; everything else is Markdown (DESIGN §4). */
export function kindOfPath(path: string): DocumentKind {
  const directory = dirname(path)
  const isWorkflowDir = directory.endsWith(`${sep}.github${sep}workflows`) || directory === `.github${sep}workflows`
  return isWorkflowDir && /\.ya?ml$/i.test(basename(path)) ? 'yaml-workflow' : 'markdown'
}

/** The title a tab shows: the file name without its extension, or "Untitled". */
export function titleOfPath(path: string | null): string {
  if (path === null) return 'Untitled'
  return basename(path).replace(/\.[^.]+$/, '') || basename(path)
}
