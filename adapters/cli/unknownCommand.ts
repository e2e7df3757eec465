import { closestName } from '../mcp/unknownArguments.js'

/**
 * A command name quire does not have. Answered with one line naming the closest command, when one is close enough
 * to be a slip of the fingers (the same rule that names a misspelled MCP argument), rather than the whole usage.
 */
export class UnknownCommandError extends Error {
  override name = 'UnknownCommandError'

  constructor(typed: string, commands: readonly string[]) {
    const guess = closestName(typed, commands)
    super(`unknown command ${JSON.stringify(typed)}${guess === undefined ? '' : `; did you mean ${JSON.stringify(guess)}?`} (quire help lists them)`)
  }
}
