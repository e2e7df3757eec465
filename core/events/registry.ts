import { documentEvents } from '../documents/events.js'
import { EventRegistry } from './schema.js'

/** Every event type Quire writes. A type, once released, is never removed: old logs must keep replaying. */
export const createEventRegistry = (): EventRegistry => new EventRegistry([...documentEvents])
