import { agentEvents } from './agents/events.js'
import { approvalEvents } from './approvals/events.js'
import { browserEvents } from './browser/events.js'
import { coherenceEvents } from './coherence/events.js'
import { commentEvents } from './comments/events.js'
import { documentEvents } from './documents/events.js'
import { reviewEvents } from './review/events.js'
import { settingsEvents } from './settings/events.js'
import { workspaceEvents } from './workspace/events.js'
import { workflowRunEvents } from './browser/workflow/runs/events.js'
import { workflowRecordingEvents } from './browser/workflow/recordEvents.js'
import { EventRegistry, type EventDefinition } from './events/schema.js'

/** Every event type Quire writes. A type, once released, is never removed: old logs must keep replaying. */
export const eventDefinitions: readonly EventDefinition[] = [...documentEvents, ...workspaceEvents, ...approvalEvents, ...settingsEvents, ...agentEvents, ...commentEvents, ...reviewEvents, ...browserEvents, ...workflowRunEvents, ...workflowRecordingEvents, ...coherenceEvents]

export const createEventRegistry = (): EventRegistry => new EventRegistry(eventDefinitions)
