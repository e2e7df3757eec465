import { parseArgs } from 'node:util'
import { createTwoFilesPatch, diffWords } from 'diff'
import { positionOfRevision } from '../../../core/documents/revision.js'
import { openAuditSource } from '../auditSource.js'
import { UsageError } from '../usage.js'

/**
 * `quire diff PATH_OR_ID REV_A [REV_B] [--words]`: what changed in a document between two of its revisions (REV_B:
 * now), as a unified diff, or word by word (`[-removed-]{+added+}`). Both texts are the document's exact content at
 * those revisions, rebuilt from the log as `quire replay` rebuilds them.
 */
export async function diffCommand(home: string, args: string[], write: (text: string) => void): Promise<number> {
  const { values, positionals } = parseArgs({ args, allowPositionals: true, options: { words: { type: 'boolean', default: false } } })
  if (positionals.length < 2 || positionals.length > 3) throw new UsageError('diff needs a document and one or two revisions: diff PATH_OR_ID REV_A [REV_B]')
  const [doc, from, to] = positionals as [string, string, string | undefined]
  for (const revision of [from, to]) {
    if (revision !== undefined && positionOfRevision(revision) === undefined) throw new UsageError(`${JSON.stringify(revision)} is not a revision token (rev-...)`)
  }
  const source = await openAuditSource(home)
  let before: string
  let after: string
  try {
    before = await source.replay(doc, from)
    after = await source.replay(doc, to)
  } finally {
    await source.close()
  }
  if (values.words) {
    write(diffWords(before, after).map((part) => (part.added ? `{+${part.value}+}` : part.removed ? `[-${part.value}-]` : part.value)).join(''))
    return 0
  }
  write(createTwoFilesPatch(`${doc}@${from}`, `${doc}@${to ?? 'now'}`, before, after, undefined, undefined, { context: 3 }))
  return 0
}
