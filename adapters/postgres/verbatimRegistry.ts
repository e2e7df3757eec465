import { EventRegistry, EventSchemaError } from '../../core/events/schema.js'

/**
 * A registry that reads payloads as they are stored: same types as `known`, but no upcasting and no schema parse on
 * read. A log opened with it yields each event exactly as recorded (its `v`, its bytes' data), which is what a copy
 * of the log must carry; appends are still checked by `known`.
 */
export class VerbatimRegistry extends EventRegistry {
  constructor(private readonly known: EventRegistry) {
    super([])
  }

  override prepare(type: string, data: unknown): number {
    return this.known.prepare(type, data)
  }

  override read(type: string, _v: number, data: unknown): unknown {
    if (!this.known.has(type)) throw new EventSchemaError(`unknown event type ${type}`)
    return data
  }

  override has(type: string): boolean {
    return this.known.has(type)
  }

  override readsUpTo(type: string): number | undefined {
    return this.known.readsUpTo(type)
  }
}
