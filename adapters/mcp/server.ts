import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js'
import type { ToolContext } from './context.js'
import { serveTools } from './defineTool.js'
import { SERVER_INSTRUCTIONS } from './instructions.js'
import { browserTool } from './tools/browser.js'
import { browserReadTool } from './tools/browserRead.js'
import { coherenceTool } from './tools/coherence.js'
import { coherenceResolveTool } from './tools/coherenceResolve.js'
import { commentsTool } from './tools/comments.js'
import { documentTool } from './tools/document.js'
import { selectionTool } from './tools/selection.js'
import { sessionTool } from './tools/session.js'
import { workflowTool } from './tools/workflow.js'
import { workspaceTool } from './tools/workspace.js'
import { enginePrincipal } from './browserCalls.js'

/** The tools, in the order `tools/list` names them. Only tools that really work are served; the finished surface is the ten tools of TOOLS.md. */
export const TOOLS = [sessionTool, workspaceTool, documentTool, workflowTool, selectionTool, commentsTool, browserTool, browserReadTool, coherenceTool, coherenceResolveTool] as const

/** One MCP server per MCP session (the SDK binds a server to one transport). */
export function createMcpServer(context: ToolContext): McpServer {
  const server = new McpServer(
    { name: 'quire', version: context.services.version },
    { capabilities: { tools: {}, logging: {} }, instructions: SERVER_INSTRUCTIONS },
  )
  serveTools(server, context, TOOLS)
  // A connection without an agent token has its own browser tabs and cookie store; they end with it.
  server.server.onclose = () => {
    // What the connection read is nobody's input once it is gone.
    context.services.coherence.forgetConnection(context.caller.connection)
    if (context.caller.principal === null) void context.services.browser.release(enginePrincipal(context.caller))
  }
  return server
}
