import { parseArgs } from 'node:util'
import type { Engine } from '../../../core/engine.js'
import { QuireError } from '../../../core/errors.js'
import { positionOfRevision } from '../../../core/documents/revision.js'
import { resolveDocument } from '../../../core/documents/resolve.js'
import { UsageError } from '../usage.js'

/** `quire replay`: a document's exact content at a revision, rebuilt from the log alone. Prints nothing else. */
export async function replayCommand(engine: Engine, args: string[], write: (text: string) => void): Promise<number> {
  const { values } = parseArgs({ args, options: { doc: { type: 'string' }, at: { type: 'string' } } })
  if (!values.doc) throw new UsageError('replay needs --doc PATH_OR_ID')
  let to = Number.MAX_SAFE_INTEGER
  if (values.at !== undefined) {
    const position = positionOfRevision(values.at)
    if (position === undefined) throw new UsageError(`${JSON.stringify(values.at)} is not a revision token (rev-...)`)
    to = position
  }
  const docId = await resolveDocument(engine, values.doc)
  const state = await engine.documents.rebuild(docId, to)
  if (!state) throw new QuireError('NOT_FOUND', `document ${docId} did not exist at ${values.at}`)
  try {
    if (values.at !== undefined && state.revision !== values.at) {
      throw new QuireError('NOT_FOUND', `${values.at} is not a revision of ${docId} (its revision there is ${state.revision})`)
    }
    write(state.content)
  } finally {
    state.destroy()
  }
  return 0
}
