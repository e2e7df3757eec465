import type { DocumentIndex } from '../audit/resolve.js'
import type { DocumentCommands } from '../documents/commands.js'
import { USER } from '../events/actor.js'
import { replayDocument } from '../audit/replay.js'

import { restoreDetail } from '../documents/restoreDetail.js'
import { changeToken } from '../documents/aiChanges.js'

export { RESTORE_DETAIL_PREFIX, restoreDetail, restoredRevision } from '../documents/restoreDetail.js'

export interface RestoreOutcome {
  /** The document's revision after the restore (unchanged when it already held that text). */
  readonly revision: string
  readonly changed: boolean
  /** The restore's change (`ch-…`), which the person can undo like any change (DESIGN §11); absent when nothing changed. */
  readonly change?: string
}

/**
 * The person restores revision `revision`: the document's text becomes what it was then, as a NEW change at the end
 * of the log (the log is never rewritten). It goes through the ordinary write path as the `user` actor, so it is
 * journaled first, diffed minimally (a concurrent editor keeps its cursor), serialised with every other write, and
 * checked against `expectedRevision` (the revision the person was looking at) like an assistant's write; its journal
 * entry's `detail` names the restored revision, which is how history shows it as a restore. Not an AI change: the
 * review backlog counts `mcp` actors only.
 */
export async function restoreRevision(engine: DocumentIndex & { readonly commands: { readonly documents: DocumentCommands } }, docId: string, revision: string, expectedRevision?: string): Promise<RestoreOutcome> {
  const text = await replayDocument(engine, docId, revision)
  const outcome = await engine.commands.documents.write({
    docId,
    content: text,
    actor: USER,
    detail: restoreDetail(revision),
    ...(expectedRevision === undefined ? {} : { expectedRevision }),
  })
  return { revision: outcome.revision, changed: outcome.changed, ...(outcome.journal === undefined ? {} : { change: changeToken(outcome.journal) }) }
}
