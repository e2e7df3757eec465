import type { z } from 'zod'

/**
 * Versioned event schemas. Each event type has a current schema version, a zod schema for that version, and
 * upcasters that lift older stored payloads to the current shape, so old logs replay under new code. A payload that
 * fails its schema on read is quarantined by the store (never a crash); on append it is a programming error. A log
 * holding a type or a version newer than the registry knows is not opened at all (core/log/eventVersions.ts).
 */
export interface EventDefinition<Type extends string = string, Schema extends z.ZodType = z.ZodType> {
  readonly type: Type
  readonly version: number
  readonly schema: Schema
  /** `upcasters[n]` turns a version-n payload into a version-(n+1) payload. */
  readonly upcasters?: Readonly<Record<number, (data: unknown) => unknown>>
}

export function defineEvent<Type extends string, Schema extends z.ZodType>(
  definition: EventDefinition<Type, Schema>,
): EventDefinition<Type, Schema> {
  return definition
}

export type EventData<D> = D extends EventDefinition<string, infer S> ? z.output<S> : never

/**
 * The payload of a recorded event of `definition`'s type, typed by its schema. The store checked it against that
 * schema on append and upcast it on read, so the cast is what the log guarantees, not a guess.
 */
export function dataOf<D extends EventDefinition>(event: { readonly type: string; readonly data: unknown }, definition: D): EventData<D> {
  if (event.type !== definition.type) throw new EventSchemaError(`expected a ${definition.type} event, got ${event.type}`)
  return event.data as EventData<D>
}

export class EventSchemaError extends Error {
  override name = 'EventSchemaError'
}

/**
 * The set of event types a store accepts. Unknown types are refused on append; a store refuses to open a log that
 * holds a type or version its registry cannot read (core/log/eventVersions.ts).
 */
export class EventRegistry {
  private readonly definitions = new Map<string, EventDefinition>()

  constructor(definitions: readonly EventDefinition[]) {
    for (const definition of definitions) {
      if (this.definitions.has(definition.type)) throw new Error(`event type ${definition.type} defined twice`)
      this.definitions.set(definition.type, definition)
    }
  }

  /** The version to write for `type`, after checking `data` against its schema. */
  prepare(type: string, data: unknown): number {
    const definition = this.definitions.get(type)
    if (!definition) throw new EventSchemaError(`unknown event type ${type}`)
    const result = definition.schema.safeParse(data)
    if (!result.success) throw new EventSchemaError(`invalid ${type} payload: ${result.error.message}`)
    return definition.version
  }

  /** Decodes a stored payload of schema version `v` into the current shape, or throws EventSchemaError. */
  read(type: string, v: number, data: unknown): unknown {
    const definition = this.definitions.get(type)
    if (!definition) throw new EventSchemaError(`unknown event type ${type}`)
    if (v > definition.version) {
      throw new EventSchemaError(`${type} v${v} was written by a newer Quire (this one reads up to v${definition.version})`)
    }
    let current = data
    for (let version = v; version < definition.version; version++) {
      const upcast = definition.upcasters?.[version]
      if (!upcast) throw new EventSchemaError(`no upcaster for ${type} from v${version}`)
      current = upcast(current)
    }
    const result = definition.schema.safeParse(current)
    if (!result.success) throw new EventSchemaError(`invalid ${type} v${v} payload: ${result.error.message}`)
    return result.data
  }

  has(type: string): boolean {
    return this.definitions.has(type)
  }

  /** The newest schema version of `type` this registry reads (the one it writes), or undefined for a type it does not know. */
  readsUpTo(type: string): number | undefined {
    return this.definitions.get(type)?.version
  }
}
