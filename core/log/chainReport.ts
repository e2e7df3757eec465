/** What a check of the log's hash chain (hashChain.ts) finds: types only, so the console's wire types can name them. */

/** Positions a log chained when it found them unchained (kept before the chain existed, or written by an older Quire). */
export interface ChainedLate {
  readonly from: number
  readonly to: number
  /** When the chain was extended over them (ms since the epoch). */
  readonly at: number
}

/** A position and its link, as a person keeps it elsewhere: `POSITION:HEX`. */
export interface ChainPoint {
  readonly position: number
  readonly hash: string
}

export interface ChainReport {
  /** The chain's head as recomputed from the records: the checkpoint to keep. Position 0 for an empty log. */
  readonly head: ChainPoint
  /** The first break, in words naming its position; undefined when every link holds. */
  readonly broken?: { readonly position: number; readonly problem: string }
  /** With `against`: whether the log still extends that checkpoint, and if not why. */
  readonly against?: { readonly point: ChainPoint; readonly holds: boolean; readonly problem?: string }
  readonly chainedLate: readonly ChainedLate[]
}
