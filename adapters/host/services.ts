import { join } from 'node:path'
import type { Commands, Engine } from '../../core/engine.js'
import type { PresenceRegistry } from '../../core/presence/presenceRegistry.js'
import { createWorkflowValidator, type WorkflowValidator } from '../actionlint/validator.js'
import { BrowserEngine } from '../browser/engine.js'
import { SavedSessions } from '../browser/savedSessions.js'
import { WorkflowRunner } from '../browser/workflowRunner.js'
import { WorkflowRecorder } from '../browser/recorder.js'
import type { ReadModels } from './readModels.js'

/**
 * Everything an adapter may call: the engine (its views for reading) and its commands, plus what only a process
 * with adapters has: actionlint for `workflow.validate` (its engine starts on first use) and Quire's version.
 */
export interface Services extends Commands {
  readonly engine: Engine
  readonly validator: WorkflowValidator
  /** The editors attached through the collaboration endpoint (ephemeral, never logged). */
  readonly presence: PresenceRegistry
  /**
   * The daemon's one embedded browser (Chromium starts on first use): the MCP browser tools and the console's
   * Browser view share it. The person's persistent profile lives in the data directory.
   */
  readonly browser: BrowserEngine
  /** Runs browser workflows on assistants' tabs (their rules and record are core's `workflowRuns`). */
  readonly workflowRunner: WorkflowRunner
  /** Records the person's actions on assistants' tabs as workflows (`workflow_record`; its record is core's `workflowRecordings`). */
  readonly workflowRecorder: WorkflowRecorder
  /**
   * The browser sessions saved by `browser.session_save`, encrypted in the data directory (names, origins and counts
   * are all `list` gives; `delete` removes one). The named profiles are the engine's (`browser.listProfiles`).
   */
  readonly savedSessions: SavedSessions
  /** The read models following the log (the audit index, document history): `quire log`, `history`, `verify`. */
  readonly readModels: ReadModels
  readonly version: string
}

export function createServices(engine: Engine, version: string, readModels: ReadModels): Services {
  const browser = new BrowserEngine({ profileDir: join(engine.home, 'browser-profile'), profilesDir: join(engine.home, 'browser-profiles') })
  const savedSessions = new SavedSessions({ dir: join(engine.home, 'browser-sessions') })
  const workflowRunner = new WorkflowRunner({ engine: browser, access: engine.commands.browserAccess, approvals: engine.commands.approvals, runs: engine.commands.workflowRuns, now: engine.now })
  const workflowRecorder = new WorkflowRecorder({ engine: browser, recordings: engine.commands.workflowRecordings })
  return { ...engine.commands, engine, presence: engine.presence, validator: createWorkflowValidator(), browser, workflowRunner, workflowRecorder, savedSessions, readModels, version }
}
