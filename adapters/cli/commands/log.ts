import { parseArgs } from 'node:util'
import { formatAuditEvent } from '../../../projections/audit/auditEvent.js'
import { openAuditSource } from '../auditSource.js'
import { UsageError } from '../usage.js'

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
    for await (const event of source.events({ since, stream: values.stream, limit })) {
      out(values.json ? JSON.stringify(event) : formatAuditEvent(event))
    }
  } finally {
    await source.close()
  }
  return 0
}

function parseCount(flag: string, value: string): number {
  if (!/^\d+$/.test(value)) throw new UsageError(`${flag} takes a non-negative whole number, not ${JSON.stringify(value)}`)
  return Number(value)
}
