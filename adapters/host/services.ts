import type { Commands, Engine } from '../../core/engine.js'
import type { PresenceRegistry } from '../../core/presence/presenceRegistry.js'
import { createWorkflowValidator, type WorkflowValidator } from '../actionlint/validator.js'

/**
 * Everything an adapter may call: the engine (its views for reading) and its commands, plus what only a process
 * with adapters has: actionlint for `workflow.validate` (its engine starts on first use) and Quire's version.
 */
export interface Services extends Commands {
  readonly engine: Engine
  readonly validator: WorkflowValidator
  /** The editors attached through the collaboration endpoint (ephemeral, never logged). */
  readonly presence: PresenceRegistry
  readonly version: string
}

export function createServices(engine: Engine, version: string): Services {
  return { ...engine.commands, engine, presence: engine.presence, validator: createWorkflowValidator(), version }
}
