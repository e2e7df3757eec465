import { parseArgs } from 'node:util'
import { describeActor } from '../../../core/events/actor.js'
import { formatAuditEvent, type AuditColumns, type AuditEvent } from '../../../projections/audit/auditEvent.js'
import { openAuditSource } from '../auditSource.js'
import { UsageError } from '../usage.js'

/**
 * Lines the text form measures its columns over before printing them: every listing up to this long is aligned as a
 * whole; a longer one keeps the widths it had and widens them only for what comes later.
 */
const ALIGNED_LINES = 10_000

/** `quire log`: the audit trail, oldest first (from the running daemon when one owns the data directory). */
export async function logCommand(home: string, args: string[], out: (line: string) => void): Promise<number> {
  const { values } = parseArgs({
    args,
    options: {
      stream: { type: 'string' },
      since: { type: 'string' },
      limit: { type: 'string' },
      json: { type: 'boolean', default: false },
    },
  })
  const since = values.since === undefined ? 0 : parseCount('--since', values.since)
  const limit = values.limit === undefined ? undefined : parseCount('--limit', values.limit)
  const source = await openAuditSource(home)
  try {
    const events = source.events({ since, stream: values.stream, limit })
    if (values.json) {
      for await (const event of events) out(JSON.stringify(event))
      return 0
    }
    let columns: AuditColumns = { actor: 18, type: 17 }
    let page: AuditEvent[] = []
    const flush = () => {
      for (const event of page) columns = { actor: Math.max(columns.actor, describeActor(event.actor).length), type: Math.max(columns.type, event.type.length) }
      for (const event of page) out(formatAuditEvent(event, columns))
      page = []
    }
    for await (const event of events) {
      page.push(event)
      if (page.length === ALIGNED_LINES) flush()
    }
    flush()
  } finally {
    await source.close()
  }
  return 0
}

function parseCount(flag: string, value: string): number {
  if (!/^\d+$/.test(value)) throw new UsageError(`${flag} takes a non-negative whole number, not ${JSON.stringify(value)}`)
  return Number(value)
}
