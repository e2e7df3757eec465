import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js'
import type { ToolContext } from './context.js'
import { SERVER_INSTRUCTIONS } from './instructions.js'
import { registerComments } from './tools/comments.js'
import { registerDocument } from './tools/document.js'
import { registerSelection } from './tools/selection.js'
import { registerSession } from './tools/session.js'
import { registerWorkflow } from './tools/workflow.js'
import { registerWorkspace } from './tools/workspace.js'

/**
 * One MCP server per MCP session (the SDK binds a server to one transport). Only tools that really work are
 * registered; the finished surface is the ten tools of TOOLS.md.
 */
export function createMcpServer(context: ToolContext): McpServer {
  const server = new McpServer(
    { name: 'quire', version: context.services.version },
    { capabilities: { tools: {}, logging: {} }, instructions: SERVER_INSTRUCTIONS },
  )
  registerSession(server, context)
  registerWorkspace(server, context)
  registerDocument(server, context)
  registerWorkflow(server, context)
  registerSelection(server, context)
  registerComments(server, context)
  return server
}
