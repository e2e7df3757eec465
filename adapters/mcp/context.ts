import type { Caller } from '../../core/workspace/commands.js'
import type { Services } from '../host/services.js'

/** What every tool handler gets: the services of the core, and who is calling over which connection. */
export interface ToolContext {
  readonly services: Services
  readonly caller: Caller
}
