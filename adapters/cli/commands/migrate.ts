import { existsSync } from 'node:fs'
import { join, resolve } from 'node:path'
import { parseArgs } from 'node:util'
import { createEventRegistry } from '../../../core/eventRegistry.js'
import type { ChainPoint, ChainReport } from '../../../core/log/chainReport.js'
import { EventStore } from '../../leveldb/eventStore.js'
import { copyLog, differences, MigrationRefusedError, summarizeLog, type LogSummary } from '../../postgres/migrateLog.js'
import { PostgresEventLog } from '../../postgres/postgresEventLog.js'
import { VerbatimRegistry } from '../../postgres/verbatimRegistry.js'
import { UsageError } from '../usage.js'

/**
 * `quire migrate --from DIR --to postgres://…`: copies the LevelDB log of a data directory (default: the one given
 * by --home) into an empty PostgreSQL log, event for event (positions, stream versions, types, payloads as stored,
 * actors, times), then reads both back and compares counts, stream heads and a hash over every event. Snapshots are
 * not copied: they are derived, and the nodes' projections rebuild them from the log. The source is only read; it
 * must not be in use (LevelDB's lock refuses a running daemon's directory).
 */
export async function migrateCommand(home: string, args: string[], out: (line: string) => void): Promise<number> {
  const { values } = parseArgs({ args, options: { from: { type: 'string' }, to: { type: 'string' }, schema: { type: 'string' } } })
  if (!values.to) throw new UsageError('migrate needs --to postgres://…')
  if (!/^postgres(ql)?:\/\//.test(values.to)) throw new UsageError(`--to must be a PostgreSQL connection string (postgres://…), not ${JSON.stringify(redacted(values.to))}`)
  const { connectionString: to, schema: named } = withoutSchema(values.to)
  if (named !== undefined && values.schema !== undefined && named !== values.schema) {
    throw new UsageError(`--to says schema=${named} and --schema says ${values.schema}: give one`)
  }
  const from = values.from === undefined ? home : resolve(values.from)
  if (!existsSync(join(from, 'log'))) throw new MigrationRefusedError(`there is no Quire log in ${from} (no ${join(from, 'log')}); nothing was copied`)
  const schema = values.schema ?? named ?? 'quire'
  const where = `${redacted(to)} (schema ${schema})`
  const registry = new VerbatimRegistry(createEventRegistry())

  const source = await EventStore.open(from, { registry })
  let sourceSummary: LogSummary
  let sourceChain: ChainPoint | undefined
  try {
    const integrity = await source.checkIntegrity()
    const problems = [
      ...integrity.problems,
      ...integrity.quarantined.map((record) => `record at position ${record.position} is quarantined: ${record.reason}`),
      ...(integrity.chain?.broken ? [`the hash chain breaks at position ${integrity.chain.broken.position}: ${integrity.chain.broken.problem}`] : []),
    ]
    sourceChain = integrity.chain?.head
    if (problems.length > 0) {
      throw new MigrationRefusedError(`the log in ${from} is not sound, so it cannot be copied exactly (run quire verify); nothing was copied:\n  ${problems.join('\n  ')}`)
    }
    sourceSummary = await summarizeLog(source)
    out(`source: ${from}: ${sourceSummary.events} events in ${sourceSummary.heads.size} streams, head position ${sourceSummary.head}`)
    const target = await openTarget(to, schema, registry, where, 'nothing was copied')
    try {
      out(`copied ${await copyLog(source, target)} events to ${where}`)
    } finally {
      await target.close()
    }
  } finally {
    await source.close()
  }

  // Read back from the database by a log opened afresh: what is compared is what is stored, not this process's memory.
  const copy = await openTarget(to, schema, registry, where, 'the copy was made but could not be verified')
  let targetSummary: LogSummary
  let targetProblems: readonly string[]
  let targetChain: ChainReport | undefined
  try {
    targetSummary = await summarizeLog(copy)
    const integrity = await copy.checkIntegrity()
    targetProblems = integrity.problems
    targetChain = integrity.chain
  } finally {
    await copy.close()
  }
  const chainDifferences = [
    ...(targetChain?.broken ? [`the target's hash chain breaks at position ${targetChain.broken.position}: ${targetChain.broken.problem}`] : []),
    ...(sourceChain && targetChain && (sourceChain.position !== targetChain.head.position || sourceChain.hash !== targetChain.head.hash)
      ? [`the hash chain's head: source ${sourceChain.position}:${sourceChain.hash}, target ${targetChain.head.position}:${targetChain.head.hash}`]
      : []),
  ]
  const found = [...differences(sourceSummary, targetSummary), ...targetProblems.map((problem) => `target: ${problem}`), ...chainDifferences]
  for (const difference of found) out(`mismatch: ${difference}`)
  if (found.length > 0) {
    out('FAILED: the copy does not match its source')
    return 1
  }
  out(`verified: ${targetSummary.events} events in ${targetSummary.heads.size} streams, head position ${targetSummary.head}, every stream head, and sha256 ${targetSummary.sha256} over every event: the same on both sides`)
  if (sourceChain) out(`chain carried: every record links as in the source, head ${sourceChain.position}:${sourceChain.hash}`)
  out('snapshots were not copied: the nodes rebuild them from the log')
  return 0
}

async function openTarget(to: string, schema: string, registry: VerbatimRegistry, where: string, consequence: string): Promise<PostgresEventLog> {
  try {
    return await PostgresEventLog.open(to, { registry, schema })
  } catch (error) {
    throw new MigrationRefusedError(`cannot open the PostgreSQL log at ${where}: ${(error as Error).message}; ${consequence}`, { cause: error })
  }
}

/**
 * `--to` as `quire serve --store` takes it: Quire's own `schema=` parameter (the PostgreSQL schema of the log) taken
 * out, the rest passed to PostgreSQL as given.
 */
function withoutSchema(value: string): { readonly connectionString: string; readonly schema: string | undefined } {
  const query = value.indexOf('?')
  if (query === -1) return { connectionString: value, schema: undefined }
  const params = new URLSearchParams(value.slice(query + 1))
  const schema = params.get('schema') ?? undefined
  params.delete('schema')
  const rest = params.toString()
  return { connectionString: value.slice(0, query) + (rest === '' ? '' : `?${rest}`), schema }
}

/** The connection string without its password, for messages. */
function redacted(connectionString: string): string {
  try {
    const url = new URL(connectionString)
    if (url.password) url.password = '***'
    return url.toString()
  } catch {
    return connectionString.replace(/:[^:@/]*@/, ':***@')
  }
}
