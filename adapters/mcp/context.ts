import type { Caller } from '../../core/workspace/commands.js'
import type { Services } from '../host/services.js'

/** The tool call being answered: the client's cancellation, and whether it asked to hear how the call goes. */
export interface CallInfo {
  /** Aborted when the client cancels the call (`notifications/cancelled`) or the connection ends. */
  readonly signal: AbortSignal
  /** Sends the client a progress notification for this call; absent when its request carried no progress token. */
  readonly progress?: (progress: number, total: number, message: string) => Promise<void>
}

/** What every tool handler gets: the services of the core, who is calling over which connection, and the call. */
export interface ToolContext {
  readonly services: Services
  readonly caller: Caller
  readonly call?: CallInfo
}
