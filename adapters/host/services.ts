import type { Engine } from '../../core/engine.js'
import { AgentCommands } from '../../core/agents/commands.js'
import { ApprovalCommands } from '../../core/approvals/commands.js'
import { SettingsCommands } from '../../core/settings/commands.js'
import { WorkspaceCommands } from '../../core/workspace/commands.js'
import { FileCommands } from '../../core/files/commands.js'
import type { FileSystemPort } from '../../core/files/port.js'
import { RewriteCommands } from '../../core/documents/rewrites.js'
import { EditorGuards } from '../../core/documents/editorGuards.js'
import type { EditChecks } from '../../core/documents/editChecks.js'
import { SelectionCommands } from '../../core/selection/commands.js'
import type { CommentCommands } from '../../core/comments/commands.js'
import { ReviewCommands } from '../../core/review/commands.js'
import { createWorkflowValidator, type WorkflowValidator } from '../actionlint/validator.js'
import { PresenceRegistry } from '../../core/presence/presenceRegistry.js'

/** Everything an adapter may call: the engine's views and the commands, wired once per process. */
export interface Services {
  readonly engine: Engine
  readonly workspace: WorkspaceCommands
  readonly approvals: ApprovalCommands
  readonly agents: AgentCommands
  readonly settings: SettingsCommands
  readonly files: FileCommands
  readonly rewrites: RewriteCommands
  readonly selection: SelectionCommands
  /** Review threads: `comments` (list, reply, mark_addressed), the person's side, and `validateAddresses(docId, ids)`. */
  readonly comments: CommentCommands
  /** The review backlog of AI changes (DOC.WRITE.18): counts, the person's review marks, the limit check. */
  readonly review: ReviewCommands
  /** actionlint for `workflow.validate`; its engine starts on first use. */
  readonly validator: WorkflowValidator
  /** The editors attached through the collaboration endpoint (ephemeral, never logged). */
  readonly presence: PresenceRegistry
  readonly version: string
}

export function createServices(engine: Engine, fileSystem: FileSystemPort, version: string): Services {
  const approvals = new ApprovalCommands(engine.store, engine.views.approvals, () => engine.now())
  const { store, views, documents } = engine
  const presence = new PresenceRegistry()
  const editors = new EditorGuards(presence, views.workspace)
  const comments = engine.commands.comments
  const review = new ReviewCommands(store, documents, engine.commands.documents, views.settings)
  const checks: EditChecks = {
    addresses: (docId, ids) => {
      if (ids !== undefined) comments.validateAddresses(docId, ids)
    },
    backlog: (docId) => review.assertBacklogNotFull(docId),
  }
  return {
    files: new FileCommands(store, views.workspace, views.settings, documents, engine.commands.documents, approvals, fileSystem, editors, checks),
    rewrites: new RewriteCommands(views.workspace, views.settings, documents, engine.commands.documents, editors, checks),
    selection: new SelectionCommands(views.workspace, documents, engine.commands.documents, presence, editors, checks),
    review,
    validator: createWorkflowValidator(),
    presence,
    engine,
    comments,
    approvals,
    agents: new AgentCommands(engine.store, engine.views.agents),
    settings: new SettingsCommands(engine.store, engine.views.settings),
    workspace: new WorkspaceCommands(
      engine.store, engine.views.workspace, engine.views.settings, engine.documents, engine.commands.documents, approvals,
    ),
    version,
  }
}
