import { parseArgs } from 'node:util'
import { positionOfRevision } from '../../../core/documents/revision.js'
import { openAuditSource } from '../auditSource.js'
import { UsageError } from '../usage.js'

/** `quire replay`: a document's exact content at a revision, rebuilt from the log alone. Prints nothing else. */
export async function replayCommand(home: string, args: string[], write: (text: string) => void): Promise<number> {
  const { values } = parseArgs({ args, options: { doc: { type: 'string' }, at: { type: 'string' } } })
  if (!values.doc) throw new UsageError('replay needs --doc PATH_OR_ID')
  if (values.at !== undefined && positionOfRevision(values.at) === undefined) {
    throw new UsageError(`${JSON.stringify(values.at)} is not a revision token (rev-...)`)
  }
  const source = await openAuditSource(home)
  try {
    write(await source.replay(values.doc, values.at))
  } finally {
    await source.close()
  }
  return 0
}
