import { z } from 'zod'
import { defineEvent } from '../events/schema.js'

/**
 * The log's copy of what we appended to a workspace's coherence ledger (DESIGN §9: every ledger line we append is also
 * an event), so `quire log`, `quire verify` and `quire replay` cover coherence like every other write. One stream per
 * workspace root. The ledger files stay the contract shared with VMark; lines other writers appended are read from
 * the files and never copied here.
 */
export const coherenceStream = (root: string): string => `coherence:${root}`

export const CoherenceLinesAppended = defineEvent({
  type: 'coherence.appended',
  version: 1,
  schema: z.object({
    root: z.string().min(1),
    /** The segment file the lines went to (`<writer>.jsonl`, `<writer>-NNN.jsonl`). */
    segment: z.string().min(1),
    /** The lines exactly as written, without their newlines. */
    lines: z.array(z.string()).min(1),
    /** The entry id of each line, in order. */
    entries: z.array(z.string()),
    /**
     * Lines found in our own segment but missing here: a crash came between the ledger's fsync and this event. They are
     * logged when the workspace is next used, re-serialized from the entries read back.
     */
    recovered: z.boolean().optional(),
  }),
})

/**
 * Quire refused to read or write the workspace's ledger through a path that is a link, a hard link or not what it
 * should be (confined.ts): the diagnostic that survives when the ledger itself cannot hold one. Logged once per path
 * and reason until a write succeeds again.
 */
export const CoherenceRefused = defineEvent({
  type: 'coherence.refused',
  version: 1,
  schema: z.object({
    root: z.string().min(1),
    /** Workspace-relative, `/`-separated: `.vmark`, `.vmark/ledger/<writer>.jsonl`. */
    path: z.string(),
    reason: z.string().min(1),
    message: z.string(),
  }),
})

export const coherenceEvents = [CoherenceLinesAppended, CoherenceRefused] as const
