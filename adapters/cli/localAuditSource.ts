import { auditEvents } from '../../projections/audit/auditEvent.js'
import { replayDocument } from '../../core/audit/replay.js'
import { verify } from '../../core/audit/verify.js'
import { openEngineHome } from '../host/engineHome.js'
import type { AuditSource } from './auditSource.js'

/** `log`, `replay` and `verify` on the data directory itself, opened here: no process owns it. */
export async function openLocalAuditSource(home: string): Promise<AuditSource> {
  const engine = await openEngineHome(home)
  return {
    events: (query) => auditEvents(engine, query),
    replay: (pathOrId, at) => replayDocument(engine, pathOrId, at),
    verify: () => verify(engine),
    close: () => engine.close(),
  }
}
