import { join } from 'node:path'
import type { EventLog } from '../../core/log/eventLog.js'
import { QuireError } from '../../core/errors.js'
import { READ_MODELS_DIRECTORY } from '../../core/home.js'
import type { ReadModel } from '../../projections/readModel/readModel.js'
import { ReadModelRunner, type RunnerStatus } from '../../projections/readModel/runner.js'
import type { ReadModelStore, ReadModelStores } from '../../projections/readModel/store.js'
import { verifyModel, type ModelVerification } from '../../projections/readModel/verifyModel.js'
import { READ_MODELS } from '../../projections/readModels.js'
import { LevelReadModelStores } from './readModelLevel.js'

/** The read models one process runs, each with its store, following the log from its checkpoint. */
export class ReadModels {
  private constructor(
    private readonly log: EventLog,
    private readonly stores: ReadModelStores,
    private readonly running: ReadonlyMap<string, { runner: ReadModelRunner; store: ReadModelStore }>,
  ) {}

  /**
   * Opens the stores in `home/readmodels` and starts every model where its checkpoint left it. Every process that
   * owns a data directory runs them, on the embedded log and on a shared PostgreSQL log alike (docs/design.md).
   */
  static async start(home: string, log: EventLog, models: readonly ReadModel[] = READ_MODELS, stores?: ReadModelStores): Promise<ReadModels> {
    const opened = stores ?? (await LevelReadModelStores.open(join(home, READ_MODELS_DIRECTORY)))
    const running = new Map<string, { runner: ReadModelRunner; store: ReadModelStore }>()
    try {
      for (const model of models) {
        const store = await opened.open(model.name)
        const runner = new ReadModelRunner(model, store, log)
        await runner.start()
        running.set(model.name, { runner, store })
      }
    } catch (error) {
      for (const { runner } of running.values()) await runner.close()
      await opened.close()
      throw error
    }
    return new ReadModels(log, opened, running)
  }

  get names(): string[] {
    return [...this.running.keys()]
  }

  /** The model's store once it has folded everything the log holds now, for a query. */
  async current(name: string): Promise<ReadModelStore> {
    const { runner, store } = this.model(name)
    await runner.current()
    return store
  }

  status(): RunnerStatus[] {
    return [...this.running.values()].map(({ runner }) => runner.status)
  }

  /** Drops the models named (all when none) and folds them again from the log. */
  async rebuild(names: readonly string[] = this.names): Promise<RunnerStatus[]> {
    const chosen = names.map((name) => this.model(name))
    for (const { runner } of chosen) await runner.rebuild()
    return chosen.map(({ runner }) => runner.status)
  }

  /** Each model compared with a fresh rebuild into a scratch store. */
  async verify(): Promise<ModelVerification[]> {
    const results: ModelVerification[] = []
    for (const [name, { runner, store }] of this.running) {
      await runner.current()
      results.push(await verifyModel(runner, store, await this.stores.scratch(name), this.log))
    }
    return results
  }

  async close(): Promise<void> {
    for (const { runner } of this.running.values()) await runner.close()
    await this.stores.close()
  }

  private model(name: string): { runner: ReadModelRunner; store: ReadModelStore } {
    const found = this.running.get(name)
    if (!found) throw new QuireError('NOT_FOUND', `no read model is called ${JSON.stringify(name)} (there are ${this.names.join(', ')})`)
    return found
  }
}
