import { replayDocument } from '../../core/audit/replay.js'
import { openEngineHome } from '../host/engineHome.js'
import type { AuditSource } from './auditSource.js'

/** `replay` on the data directory itself, opened here: no process owns it. */
export async function openLocalAuditSource(home: string): Promise<AuditSource> {
  const engine = await openEngineHome(home)
  return {
    replay: (pathOrId, at) => replayDocument(engine, pathOrId, at),
    close: () => engine.close(),
  }
}
