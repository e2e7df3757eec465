import { parseArgs } from 'node:util'
import type { RunnerStatus } from '../../../projections/readModel/runner.js'
import { withOwner } from '../owner.js'

/** `quire rebuild [NAME]...`: drops the read models named (all when none) and folds them again from the log. */
export async function rebuildCommand(home: string, args: string[], out: (line: string) => void): Promise<number> {
  const { positionals } = parseArgs({ args, allowPositionals: true, options: {} })
  const names = positionals.length > 0 ? positionals : undefined
  const { models } = await withOwner(
    home,
    (owner) => owner.request<{ models: RunnerStatus[] }>('POST', '/admin/rebuild', names ? { names } : {}),
    async (services) => ({ models: await services.readModels.rebuild(names) }),
  )
  for (const model of models) out(`${model.name}: rebuilt from the log up to position ${model.checkpoint}`)
  return 0
}
