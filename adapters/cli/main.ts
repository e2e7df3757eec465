#!/usr/bin/env node
import type { Engine } from '../../core/engine.js'
import { isQuireError } from '../../core/errors.js'
import { makeHomePrivate, resolveHome } from '../../core/home.js'
import { keepOwnFilesPrivate } from '../fs/fileModes.js'
import { EventStoreError } from '../../core/log/errors.js'
import { USAGE, UsageError } from './usage.js'
import { UnknownCommandError } from './unknownCommand.js'
import { OwnerRequestError } from './owner.js'
import { RefusedError } from './refusedError.js'
import { OutputClosedError, outputTo, watchForClosedReader } from './output.js'

type Command = (engine: Engine, args: string[], out: (text: string) => void) => Promise<number>
/** A command that manages the data directory itself (it may run a server, or talk to the one that owns it). */
type HomeCommand = (home: string, args: string[], out: (text: string) => void) => Promise<number>

/**
 * Each command's module is loaded only when that command runs: the core, the HTTP server and the MCP SDK take most of
 * a second to load, which `quire help`, a usage error, or a command answered by the running daemon never needs.
 */
const HOME_COMMANDS: Record<string, { load: () => Promise<HomeCommand>; stderr?: boolean; raw?: boolean }> = {
  log: { load: async () => (await import('./commands/log.js')).logCommand },
  replay: { load: async () => (await import('./commands/replay.js')).replayCommand, raw: true },
  verify: { load: async () => (await import('./commands/verify.js')).verifyCommand },
  rebuild: { load: async () => (await import('./commands/rebuild.js')).rebuildCommand },
  diff: { load: async () => (await import('./commands/diff.js')).diffCommand, raw: true },
  blame: { load: async () => (await import('./commands/blame.js')).blameCommand },
  migrate: { load: async () => (await import('./commands/migrate.js')).migrateCommand },
  serve: { load: async () => (await import('./commands/serve.js')).serveCommand },
  // stdout carries the MCP protocol: everything else goes to stderr.
  mcp: { load: async () => (await import('./commands/mcp.js')).mcpCommand, stderr: true },
  agent: { load: async () => (await import('./commands/person.js')).agentCommand },
  approvals: { load: async () => (await import('./commands/person.js')).approvalsCommand },
  history: { load: async () => (await import('./commands/history.js')).historyCommand },
  settings: { load: async () => (await import('./commands/person.js')).settingsCommand },
  divergence: { load: async () => (await import('./commands/person.js')).divergenceCommand },
  comments: { load: async () => (await import('./commands/comments.js')).commentsCommand },
  review: { load: async () => (await import('./commands/review.js')).reviewCommand },
  coherence: { load: async () => (await import('./commands/coherence.js')).coherenceCommand },
  browser: { load: async () => (await import('./commands/browser.js')).browserCommand },
  status: { load: async () => (await import('./commands/status.js')).statusCommand },
}

const COMMANDS: Record<string, { load: () => Promise<Command>; raw?: boolean }> = {
  'ingest-trace': { load: async () => (await import('./commands/ingestTrace.js')).ingestTraceCommand },
  doc: { load: async () => (await import('./commands/doc.js')).docCommand },
}

/** Runs the CLI and returns its exit status: 0 success, 1 failure, 2 usage error. */
export async function main(argv: string[]): Promise<number> {
  let engine: Engine | undefined
  // Before anything is opened: every file and directory Quire creates is the person's alone (fileModes.ts).
  keepOwnFilesPrivate()
  watchForClosedReader(process.stdout)
  watchForClosedReader(process.stderr)
  try {
    const { home, help, rest } = splitGlobalOptions(argv)
    const [name = 'status', ...args] = rest
    if (help || name === 'help') {
      process.stdout.write(`${USAGE}\n`)
      return 0
    }
    const homeCommand = HOME_COMMANDS[name]
    if (homeCommand) {
      const out = homeCommand.stderr
        ? outputTo(process.stderr, homeCommand.raw ? 'raw' : 'lines', 'drop')
        : outputTo(process.stdout, homeCommand.raw ? 'raw' : 'lines', 'stop')
      const directory = resolveHome(home)
      await makeHomePrivate(directory)
      const run = await homeCommand.load()
      return await run(directory, args, out)
    }
    const command = COMMANDS[name]
    if (!command) throw new UnknownCommandError(name, [...Object.keys(HOME_COMMANDS), ...Object.keys(COMMANDS), 'help'])
    const directory = resolveHome(home)
    await makeHomePrivate(directory)
    const [run, { openEngineHome }] = await Promise.all([command.load(), import('../host/engineHome.js')])
    engine = await openEngineHome(directory)
    const out = outputTo(process.stdout, command.raw ? 'raw' : 'lines', 'stop')
    return await run(engine, args, out)
  } catch (error) {
    // `quire log | head`: the reader has what it wanted.
    if (error instanceof OutputClosedError) return 0
    if (error instanceof UnknownCommandError) {
      process.stderr.write(`quire: ${error.message}\n`)
      return 2
    }
    if (error instanceof UsageError || (error as { code?: string }).code?.startsWith('ERR_PARSE_ARGS')) {
      process.stderr.write(`quire: ${(error as Error).message}\n\n${USAGE}\n`)
      return 2
    }
    if (isQuireError(error) || error instanceof EventStoreError || error instanceof OwnerRequestError || error instanceof RefusedError) {
      process.stderr.write(`quire: ${error.message}\n`)
      return 1
    }
    process.stderr.write(`quire: unexpected error: ${(error as Error).stack ?? String(error)}\n`)
    return 1
  } finally {
    await engine?.close()
  }
}

/** Takes the global options (`--home DIR`, `--home=DIR`, `--help`) out of argv, wherever they stand. */
function splitGlobalOptions(argv: string[]): { home: string | undefined; help: boolean; rest: string[] } {
  let home: string | undefined
  let help = false
  const rest: string[] = []
  for (let i = 0; i < argv.length; i++) {
    const arg = argv[i]!
    if (arg === '--home') {
      home = argv[++i]
      if (home === undefined || home === '') throw new UsageError('--home needs a directory')
    } else if (arg.startsWith('--home=')) {
      home = arg.slice('--home='.length)
      if (home === '') throw new UsageError('--home needs a directory')
    } else if (arg === '--help' || arg === '-h') {
      help = true
    } else {
      rest.push(arg)
    }
  }
  return { home, help, rest }
}

process.exitCode = await main(process.argv.slice(2))
