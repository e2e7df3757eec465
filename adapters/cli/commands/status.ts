import type { Engine } from '../../../core/engine.js'

/** `quire status` (also `quire` alone): where the data directory is and what the log holds. */
export async function statusCommand(engine: Engine, _args: string[], out: (line: string) => void): Promise<number> {
  const documents = await engine.documents.ids()
  out(`data directory: ${engine.home}`)
  out(`log: head position ${engine.store.headPosition}, ${documents.length} document${documents.length === 1 ? '' : 's'}`)
  const quarantined = engine.store.quarantinedRecords().length
  if (quarantined > 0) out(`quarantined records: ${quarantined} (run quire verify)`)
  out('run `quire help` for the commands')
  return 0
}
