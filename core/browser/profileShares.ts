import { dataOf } from '../events/schema.js'
import type { RecordedEvent } from '../log/eventLog.js'
import { BrowserProfileShared, BrowserProfileUnshared } from './events.js'

/**
 * Whose named profile an agent's `open {profile}` opens. A profile is its agent's own (a login made through one
 * assistant is not another's to use), unless the person shared it: `quire browser share PROFILE --owner A --with B`
 * (or its `/admin` route), an event in the `browser` stream, lets B's opens of PROFILE use A's profile until
 * `quire browser unshare` takes it back.
 */
export interface ProfileShare {
  readonly profile: string
  readonly owner: string
  readonly with: string
}

/** The shares in force, oldest first. */
export type ProfileShares = readonly ProfileShare[]

const same = (a: ProfileShare, b: ProfileShare): boolean => a.profile === b.profile && a.owner === b.owner && a.with === b.with

export function evolveProfileShares(shares: ProfileShares, event: RecordedEvent): ProfileShares {
  switch (event.type) {
    case BrowserProfileShared.type: {
      const share = dataOf(event, BrowserProfileShared)
      return [...shares.filter((kept) => !same(kept, share)), share]
    }
    case BrowserProfileUnshared.type: {
      const share = dataOf(event, BrowserProfileUnshared)
      return shares.filter((kept) => !same(kept, share))
    }
    default:
      return shares
  }
}

/** The agent whose profile `profile` is for `agent`'s opens: the newest share of that name with it, else its own. */
export function profileOwnerFor(shares: ProfileShares, agent: string, profile: string): string {
  for (let index = shares.length - 1; index >= 0; index--) {
    const share = shares[index]!
    if (share.with === agent && share.profile === profile) return share.owner
  }
  return agent
}
