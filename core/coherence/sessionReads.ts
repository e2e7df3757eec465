/**
 * What each MCP connection read since its last write (spec §7 example 2, §8): the documents an assistant read become
 * the `inferred` input set of its next captured save, `direct` for whole reads and `contextual` for parts. A write
 * takes the whole set at once, so reads arriving while it is captured belong to the next write and two writes never
 * share a read. Bounded: 256 reads per connection (the least recent dropped), 1,024 connections (the least recently
 * active forgotten), so a client that only reads cannot grow it without limit.
 */

export interface SessionRead {
  /** The file's real path. */
  readonly path: string
  /** The text served: the revision read is the one with this content (a later edit upstream is not what was read). */
  readonly content: string
  readonly role: 'direct' | 'contextual'
}

const MAX_READS_PER_CONNECTION = 256
const MAX_CONNECTIONS = 1_024

export class SessionReads {
  private readonly byConnection = new Map<string, Map<string, SessionRead>>()

  note(connection: string, read: SessionRead): void {
    let reads = this.byConnection.get(connection)
    if (reads === undefined) {
      reads = new Map()
      if (this.byConnection.size >= MAX_CONNECTIONS) this.byConnection.delete(this.byConnection.keys().next().value as string)
    } else {
      this.byConnection.delete(connection)
    }
    this.byConnection.set(connection, reads)
    const previous = reads.get(read.path)
    reads.delete(read.path)
    if (reads.size >= MAX_READS_PER_CONNECTION) reads.delete(reads.keys().next().value as string)
    // A part read after the whole keeps the whole's role: the assistant did see all of it.
    reads.set(read.path, previous?.role === 'direct' && read.role === 'contextual' && previous.content === read.content ? previous : read)
  }

  /** Detaches and returns the connection's reads, oldest first. */
  take(connection: string): SessionRead[] {
    const reads = this.byConnection.get(connection)
    this.byConnection.delete(connection)
    return reads === undefined ? [] : [...reads.values()]
  }

  /** The connection's reads, left in place. */
  peek(connection: string): SessionRead[] {
    return [...(this.byConnection.get(connection)?.values() ?? [])]
  }

  forget(connection: string): void {
    this.byConnection.delete(connection)
  }
}
