import { parseArgs } from 'node:util'
import { USER } from '../../../core/events/actor.js'
import type { ProfilesListing } from '../../http/adminBrowser.js'
import { withOwner } from '../owner.js'
import { UsageError } from '../usage.js'

const USAGE = 'browser profiles | share PROFILE --owner AGENT --with AGENT | unshare PROFILE --owner AGENT --with AGENT'

/**
 * `quire browser …`: the person's side of assistants' named browser profiles. Each agent's profiles are its own (a
 * login made through one assistant is not another's); `share` lets agent WITH open agent OWNER's PROFILE, logins and
 * all, until `unshare`. Each share and unshare is an event in the log's `browser` stream.
 */
export async function browserCommand(home: string, args: string[], out: (line: string) => void): Promise<number> {
  const [action, ...rest] = args
  if (action === 'profiles' && rest.length === 0) {
    const listing = await withOwner(
      home,
      (owner) => owner.request<ProfilesListing>('GET', '/admin/browser/profiles'),
      async (services) => (await import('../../http/adminBrowser.js')).profilesListing(services),
    )
    printListing(listing, out)
    return 0
  }
  if (action === 'share' || action === 'unshare') {
    const { values, positionals } = parseArgs({ args: rest, options: { owner: { type: 'string' }, with: { type: 'string' } }, allowPositionals: true, strict: true })
    const [profile] = positionals
    if (profile === undefined || positionals.length !== 1 || values.owner === undefined || values.with === undefined) throw new UsageError(USAGE)
    const share = { profile, owner: values.owner, with: values.with }
    await withOwner(
      home,
      (owner) => owner.request('POST', `/admin/browser/profiles/${action}`, share),
      (services) => (action === 'share' ? services.browserAccess.shareProfile(share, USER) : services.browserAccess.unshareProfile(share, USER)),
    )
    out(action === 'share' ? `${share.with} now opens ${share.owner}'s profile "${profile}"` : `${share.with} no longer opens ${share.owner}'s profile "${profile}"`)
    return 0
  }
  throw new UsageError(USAGE)
}

function printListing(listing: ProfilesListing, out: (line: string) => void): void {
  if (listing.profiles.length === 0) out('no named profiles')
  for (const profile of listing.profiles) {
    const sharedWith = listing.shares.filter((share) => share.profile === profile.name && share.owner === profile.owner).map((share) => share.with)
    out(`${profile.name.padEnd(24)}  ${(profile.owner ?? '(no owner)').padEnd(16)}  ${profile.origins.join(' ') || '(no origin yet)'}${sharedWith.length > 0 ? `  shared with ${sharedWith.join(', ')}` : ''}`)
  }
}
