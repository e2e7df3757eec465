import type { EventRegistry } from '../../core/events/schema.js'
import type { EventLog } from '../../core/log/eventLog.js'
import { EventStore } from '../../adapters/leveldb/eventStore.js'
import { JournalWriteError } from '../../core/log/errors.js'

/**
 * The LevelDB log, wrapped so its appends can be held at a gate: what a shared log's append does while it waits for
 * the writer lease (a round trip to PostgreSQL), made as long as a test needs. Pass `openLog` to the engine.
 */
export interface GatedLog {
  readonly openLog: (registry: EventRegistry) => Promise<EventLog>
  /**
   * From now on appends wait; the returned function lets them (and later ones) through. Given `failing`, the appends
   * already waiting that name a stream it accepts fail instead, with a JournalWriteError (a disk or database that could
   * not take them), and the rest go on to the log.
   */
  hold(): (failing?: (stream: string) => boolean) => void
  /** Appends that reached the gate while it was held. */
  readonly waiting: number
}

export function gatedLog(directory: string): GatedLog {
  let gate: Promise<((stream: string) => boolean) | undefined> | undefined
  let waiting = 0
  return {
    async openLog(registry) {
      const store = await EventStore.open(directory, { registry })
      const append: EventLog['append'] = async (appends) => {
        if (gate) {
          waiting++
          const failing = await gate
          if (failing && appends.some(({ stream }) => failing(stream))) throw new JournalWriteError(store.headPosition + 1, 'write-failed', { cause: new Error('the gated log failed this append') })
        }
        return store.append(appends)
      }
      return new Proxy(store, {
        get: (target, property) => {
          if (property === 'append') return append
          const value: unknown = Reflect.get(target, property, target)
          return typeof value === 'function' ? value.bind(target) : value
        },
      })
    },
    hold() {
      let release!: (failing: ((stream: string) => boolean) | undefined) => void
      gate = new Promise((resolve) => (release = resolve))
      return (failing) => {
        gate = undefined
        release(failing)
      }
    },
    get waiting() {
      return waiting
    },
  }
}
