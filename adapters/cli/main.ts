#!/usr/bin/env node
import { parseArgs } from 'node:util'
import { openEngine, type Engine } from '../../core/engine.js'
import { isQuireError } from '../../core/errors.js'
import { resolveHome } from '../../core/home.js'
import { EventStoreError } from '../../core/log/errors.js'
import { docCommand } from './commands/doc.js'
import { ingestTraceCommand } from './commands/ingestTrace.js'
import { logCommand } from './commands/log.js'
import { replayCommand } from './commands/replay.js'
import { statusCommand } from './commands/status.js'
import { verifyCommand } from './commands/verify.js'
import { USAGE, UsageError } from './usage.js'

type Command = (engine: Engine, args: string[], out: (text: string) => void) => Promise<number>

const COMMANDS: Record<string, { run: Command; raw?: boolean }> = {
  log: { run: logCommand },
  replay: { run: replayCommand, raw: true },
  verify: { run: verifyCommand },
  'ingest-trace': { run: ingestTraceCommand },
  doc: { run: docCommand },
  status: { run: statusCommand },
}

/** Runs the CLI and returns its exit status: 0 success, 1 failure, 2 usage error. */
export async function main(argv: string[]): Promise<number> {
  let engine: Engine | undefined
  try {
    const { values, positionals } = parseArgs({
      args: argv,
      options: { home: { type: 'string' }, help: { type: 'boolean', short: 'h' } },
      allowPositionals: true,
      strict: false,
    })
    const name = positionals[0] ?? 'status'
    if (name === 'help' || values.help) {
      process.stdout.write(`${USAGE}\n`)
      return 0
    }
    const command = COMMANDS[name]
    if (!command) throw new UsageError(`unknown command ${JSON.stringify(name)}`)
    // Everything after the command name, minus the global --home, belongs to the command.
    const rest = withoutHome(positionals.length > 0 ? argv.slice(argv.indexOf(name) + 1) : [])
    engine = await openEngine(resolveHome(typeof values.home === 'string' ? values.home : undefined))
    const out = command.raw
      ? (text: string) => void process.stdout.write(text)
      : (line: string) => void process.stdout.write(`${line}\n`)
    return await command.run(engine, rest, out)
  } catch (error) {
    if (error instanceof UsageError || (error as { code?: string }).code?.startsWith('ERR_PARSE_ARGS')) {
      process.stderr.write(`quire: ${(error as Error).message}\n\n${USAGE}\n`)
      return 2
    }
    if (isQuireError(error) || error instanceof EventStoreError) {
      process.stderr.write(`quire: ${error.message}\n`)
      return 1
    }
    process.stderr.write(`quire: unexpected error: ${(error as Error).stack ?? String(error)}\n`)
    return 1
  } finally {
    await engine?.close()
  }
}

function withoutHome(args: string[]): string[] {
  const result: string[] = []
  for (let i = 0; i < args.length; i++) {
    if (args[i] === '--home') i++
    else if (!args[i]!.startsWith('--home=')) result.push(args[i]!)
  }
  return result
}

process.exitCode = await main(process.argv.slice(2))
