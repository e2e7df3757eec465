import type { Actor } from '../events/actor.js'
import { QuireError } from '../errors.js'
import type { EventInput } from '../log/eventLog.js'
import type { DocumentState } from './documentState.js'
import { positionOfRevision, revisionToken } from './revision.js'

/**
 * What a save (or an open, or a reload) records: the file at `path` holds the document as of `revisionPosition`, or,
 * when null, as of the record itself (the content it was read with or reloaded to, in the same append).
 */
export interface SaveMark {
  readonly path: string
  readonly sha256: string
  readonly length: number
  readonly revisionPosition: number | null
  readonly reason: 'open' | 'save' | 'reload'
}

/**
 * The commands on a document's stream that are decided from its folded state alone. Content changes (writes, peer
 * updates, reloads) are decided by the owner on the Y.Doc itself, which is part of the state (see DocumentCommands).
 */
export type DocumentCommand =
  | { readonly type: 'record-save'; readonly mark: SaveMark; readonly actor: Actor }
  | { readonly type: 'diverge'; readonly path: string; readonly sha256: string; readonly length: number; readonly actor: Actor }
  | { readonly type: 'keep-divergence'; readonly actor: Actor }
  | { readonly type: 'mark-reviewed'; readonly upToRevision: string; readonly reviewedUpTo: number; readonly actor: Actor }
  | { readonly type: 'check-revision'; readonly expectedRevision: string | undefined }

/**
 * The document stream's decide for those commands: a save is always recorded (the file is already written); a
 * divergence once per disk version; "keep" only of a divergence; a review mark only up to a revision the document
 * has reached and past what earlier marks reviewed; an expected revision must be the current one (STALE).
 */
export function decideDocument(command: DocumentCommand, state: DocumentState): EventInput[] {
  switch (command.type) {
    case 'record-save':
      return [savedEvent(command.actor, command.mark)]
    case 'diverge':
      if (state.divergence?.sha256 === command.sha256) return []
      return [{ type: 'document.diverged', actor: command.actor, data: { path: command.path, sha256: command.sha256, length: command.length } }]
    case 'keep-divergence':
      if (!state.divergence) throw new QuireError('INVALID_ARGUMENT', `document ${state.docId} has not diverged from its file`)
      return [{ type: 'document.divergence-resolved', actor: command.actor, data: { choice: 'keep' } }]
    case 'mark-reviewed': {
      const upTo = positionOfRevision(command.upToRevision)
      if (upTo === undefined) throw new QuireError('INVALID_ARGUMENT', `${JSON.stringify(command.upToRevision)} is not a revision token (rev-...)`)
      if (upTo > state.position) throw new QuireError('INVALID_ARGUMENT', `${command.upToRevision} is later than the document's last event`)
      if (upTo <= command.reviewedUpTo) return []
      return [{ type: 'review.marked', actor: command.actor, data: { upToPosition: upTo } }]
    }
    case 'check-revision':
      if (command.expectedRevision !== undefined && positionOfRevision(command.expectedRevision) !== state.revisionPosition) {
        throw new QuireError('STALE', 'Document has changed since the last read', { current_revision: state.revision })
      }
      return []
  }
}

/** A `document.saved` event for `mark`. */
export function savedEvent(actor: Actor, mark: SaveMark): EventInput {
  return {
    type: 'document.saved',
    actor,
    data: { path: mark.path, sha256: mark.sha256, length: mark.length, reason: mark.reason, revision: mark.revisionPosition === null ? null : revisionToken(mark.revisionPosition) },
  }
}
