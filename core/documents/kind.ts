import { basename } from 'node:path'
import { isWorkflowPath, looksLikeWorkflow } from '../workflow/detect.js'
import type { DocumentKind } from './events.js'

/**
 * A GitHub Actions workflow lives at `.github/workflows/*.yml|yaml`, or is any other YAML file whose text has the
 * workflow's top-level `on:` and `jobs:` (a workflow kept elsewhere, a reusable one being drafted); everything else
 * is Markdown (DESIGN §4).
 */
export function kindOfFile(path: string, content: string): DocumentKind {
  if (!/\.ya?ml$/i.test(basename(path))) return 'markdown'
  return isWorkflowPath(path) || looksLikeWorkflow(content) ? 'yaml-workflow' : 'markdown'
}

/** The title a tab shows: the file name without its extension, or "Untitled". */
export function titleOfPath(path: string | null): string {
  if (path === null) return 'Untitled'
  return basename(path).replace(/\.[^.]+$/, '') || basename(path)
}
