import type { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js'
import { getParseErrorMessage } from '@modelcontextprotocol/sdk/server/zod-compat.js'
import { toJsonSchemaCompat } from '@modelcontextprotocol/sdk/server/zod-json-schema-compat.js'
import {
  CallToolRequestSchema, ErrorCode, ListToolsRequestSchema, McpError, type CallToolResult, type ProgressToken, type ServerNotification, type Tool as ListedTool,
} from '@modelcontextprotocol/sdk/types.js'
import { z } from 'zod'
import { mcpActivity } from './activity.js'
import type { CallInfo, ToolContext } from './context.js'
import { outputSchemaOf } from './outputSchema.js'
import { fromError, plainError, RECOVERY, success } from './results.js'
import { unknownArguments, unknownArgumentsMessage } from './unknownArguments.js'

/**
 * One way to define a composite MCP tool (the shape of playwright-mcp's `defineTool`): the tool file states its
 * arguments, its actions and what each answers; this module owns the rest — the `tools/list` entry (its
 * outputSchema included), refusing argument names the tool does not define, parsing the arguments, the per-action required-argument refusals (plain strings, ERR.3),
 * running the action and mapping what it returns or throws through results.ts.
 */

/** All four hints, stated: a client must not have to guess a default (GEN.3, ANN.*). */
export interface ToolAnnotations {
  readonly readOnlyHint: boolean
  readonly destructiveHint: boolean
  readonly idempotentHint: boolean
  readonly openWorldHint: boolean
}

type Shape = z.core.$ZodShape
type ArgumentsOf<S extends Shape> = z.output<z.ZodObject<S>>
/** The arguments once the required ones are known to be given. */
type Given<A, R extends keyof A> = A & { [K in R]-?: Exclude<A[K], undefined> }

export interface Action<A, R extends keyof A> {
  /** Arguments the action cannot run without: a call lacking any is refused, naming each one missing. */
  readonly required?: readonly R[]
  /** What the required arguments are, after their names in that refusal: `workspace.open needs filePath (an absolute path)`. */
  readonly requiredHint?: string
  /** An argument refusal beyond presence (a value out of range, an argument this action does not take): its plain-string message. */
  readonly refuse?: (args: A) => string | undefined
  /** How to narrow the request when the answer exceeds the output bound (results.ts). */
  readonly recovery?: string
  /**
   * The action itself: its answer becomes the success result, unless it is a `RawResult` (an answer that is not one
   * JSON object: a screenshot's image, a browser token refusal), which goes out as it is; what it throws is mapped by
   * `fromError`.
   */
  readonly run: (args: Given<A, R>, context: ToolContext) => Promise<Record<string, unknown> | RawResult>
}

/** A `CallToolResult` an action builds itself (see `Action.run`). */
export interface RawResult {
  readonly [RAW]: CallToolResult
}
const RAW = Symbol('raw tool result')

export function rawResult(result: CallToolResult): RawResult {
  return { [RAW]: result }
}

function isRawResult(answer: Record<string, unknown> | RawResult): answer is RawResult {
  return RAW in answer
}

/** An action as the tool stores it: the narrowing its `required` names gave `run` is erased. */
type StoredAction<A> = Omit<Action<A, never>, 'required' | 'run'> & {
  readonly required?: readonly (keyof A & string)[]
  readonly run: (args: A, context: ToolContext) => Promise<Record<string, unknown> | RawResult>
}

/** Declares one action; a function so that its `required` names narrow the arguments its `run` receives. */
type ActionBuilder<A> = <R extends keyof A & string = never>(action: Action<A, R>) => StoredAction<A>

export interface ToolDefinition<S extends Shape, Name extends string> {
  readonly name: string
  readonly title: string
  readonly description: string
  readonly annotations: ToolAnnotations
  /** Every argument besides `action`, in the order the schema advertises them; each action uses the ones it needs. */
  readonly args: S
  readonly actions: (action: ActionBuilder<ArgumentsOf<S> & { action: string }>) => Record<Name, StoredAction<ArgumentsOf<S> & { action: string }>>
  /**
   * Each action's success as its `structuredContent` holds it (a RawResult's too), declared as the tool's
   * `outputSchema` (outputSchema.ts): what a client that validates checks every answer against.
   */
  readonly outputs: Readonly<Record<Name, z.ZodType>>
}

/** A defined tool: its `tools/list` entry and the call that answers `tools/call`. */
export interface Tool {
  readonly name: string
  readonly listing: ListedTool
  call(rawArguments: Record<string, unknown> | undefined, context: ToolContext): Promise<CallToolResult>
}

export function defineTool<S extends Shape, Name extends string>(definition: ToolDefinition<S, Name>): Tool {
  type A = ArgumentsOf<S> & { action: string }
  const actions = definition.actions((action) => action as unknown as StoredAction<A>) as Record<string, StoredAction<A>>
  const names = Object.keys(actions) as [Name, ...Name[]]
  const schema = z.object({ action: z.enum(names), ...definition.args })
  const accepted = Object.keys(schema.shape)
  const listing: ListedTool = {
    name: definition.name,
    title: definition.title,
    description: definition.description,
    // The conversion and options McpServer.registerTool uses, so the advertised schema is the SDK's rendering.
    inputSchema: toJsonSchemaCompat(schema, { strictUnions: true, pipeStrategy: 'input' }) as ListedTool['inputSchema'],
    outputSchema: outputSchemaOf(names.map((name) => definition.outputs[name])),
    annotations: { title: definition.title, ...definition.annotations },
    execution: { taskSupport: 'forbidden' },
  }
  return {
    name: definition.name,
    listing,
    async call(rawArguments, context) {
      // Before parsing: the schema would drop a name it does not define, and the call would run without it.
      const unknown = unknownArguments(rawArguments ?? {}, accepted)
      if (unknown.length > 0) return plainError(unknownArgumentsMessage(definition.name, unknown, accepted))
      const parsed = await schema.safeParseAsync(rawArguments ?? {})
      if (!parsed.success) return argumentError(`Input validation error: Invalid arguments for tool ${definition.name}: ${getParseErrorMessage(parsed.error)}`)
      const args = parsed.data as A
      const action = actions[args.action]!
      const missing = (action.required ?? []).filter((name) => args[name] === undefined)
      if (missing.length > 0) {
        return plainError(`${definition.name}.${args.action} needs ${missing.join(', ')}${action.requiredHint ? ` ${action.requiredHint}` : ''}`)
      }
      const refusal = action.refuse?.(args)
      if (refusal !== undefined) return plainError(refusal)
      try {
        const answer = await action.run(args, context)
        return isRawResult(answer) ? answer[RAW] : success(answer, action.recovery ?? RECOVERY.default)
      } catch (error) {
        return fromError(error)
      }
    },
  }
}

/**
 * Serves the tools on the server's `tools/list` and `tools/call`, installed on the protocol server itself:
 * `McpServer.registerTool` parses the arguments before its handler runs and strips the names it does not define,
 * so a handler could never refuse them, and a strict schema would advertise `additionalProperties: false`, which
 * the spec's schemas do not say. The capability McpServer would add (`listChanged`) is kept so `initialize`
 * answers as it always has.
 */
export function serveTools(server: McpServer, context: ToolContext, tools: readonly Tool[]): void {
  const byName = new Map(tools.map((tool) => [tool.name, tool]))
  server.server.registerCapabilities({ tools: { listChanged: true } })
  server.server.setRequestHandler(ListToolsRequestSchema, () => ({ tools: tools.map((tool) => tool.listing) }))
  server.server.setRequestHandler(CallToolRequestSchema, async (request, extra) => {
    const tool = byName.get(request.params.name)
    if (!tool) return argumentError(`Tool ${request.params.name} not found`)
    const result = await tool.call(request.params.arguments, { ...context, call: callInfo(extra.signal, extra._meta?.progressToken, extra.sendNotification) })
    // Who read or wrote what, for the person's console (a read is no event).
    if (!result.isError) mcpActivity.called(context.caller, context.services, tool.name, request.params.arguments)
    return result
  })
}

/**
 * The call as its action sees it: cancellation, and progress notifications tied to the client's progress token (MCP
 * sends them on the request's own stream, so they reach the client whatever the transport).
 */
function callInfo(signal: AbortSignal, token: ProgressToken | undefined, send: (notification: ServerNotification) => Promise<void>): CallInfo {
  if (token === undefined) return { signal }
  return {
    signal,
    progress: (progress, total, message) => send({ method: 'notifications/progress', params: { progressToken: token, progress, total, message } }),
  }
}

/** A refusal worded as the SDK words its own InvalidParams errors, which clients have always received. */
function argumentError(message: string): CallToolResult {
  return plainError(new McpError(ErrorCode.InvalidParams, message).message)
}
