import { describe, expect, test } from 'vitest'
import { askBeforeLoading, judgeHop, type TabHold } from '../../core/browser/hold.js'
import { isOwnAddress, type OwnServer } from '../../core/browser/ownAddress.js'

/** core/browser/ownAddress.ts and hold.ts: which URLs an assistant's tab may load, and what is asked first. */

const LOOPBACK: OwnServer = { port: 4100, listenHost: '127.0.0.1', allowedHosts: ['quire.example', 'balancer.example:443'], machineAddresses: [] }
const EVERYWHERE: OwnServer = { port: 4200, listenHost: '0.0.0.0', allowedHosts: [], machineAddresses: ['10.1.2.3', 'fe80::1'] }

describe('the daemon\'s own addresses (issue 25 item 5)', () => {
  test('every loopback spelling and Host alias on its port is its own; other ports and hosts are not', () => {
    for (const url of [
      'http://127.0.0.1:4100/', 'http://localhost:4100/console/api/state', 'http://LOCALHOST:4100/', 'http://localhost.:4100/', 'http://app.localhost:4100/',
      'http://[::1]:4100/', 'http://[0:0::1]:4100/', 'http://127.1:4100/', 'http://0x7f.0.0.1:4100/', 'http://2130706433:4100/', 'http://127.9.9.9:4100/',
      'http://0.0.0.0:4100/', 'http://[::]:4100/', 'http://[::ffff:127.0.0.1]:4100/', 'https://localhost:4100/', 'http://user:pw@127.0.0.1:4100/?q#f',
      'http://quire.example:4100/', 'https://balancer.example/', 'http://balancer.example:443/',
    ]) expect(isOwnAddress(url, [LOOPBACK]), url).toBe(true)
    for (const url of [
      'http://127.0.0.1:4101/', 'http://localhost/', 'http://quire.example/', 'http://quire.example:4101/', 'https://balancer.example:8443/',
      'http://10.1.2.3:4100/', 'http://example.com:4100/', 'ws://127.0.0.1:4100/', 'file:///etc/passwd', 'not a url',
    ]) expect(isOwnAddress(url, [LOOPBACK]), url).toBe(false)
  })

  test('listening on every address, each of the machine\'s addresses is its own too', () => {
    expect(isOwnAddress('http://10.1.2.3:4200/', [EVERYWHERE])).toBe(true)
    expect(isOwnAddress('http://[fe80::1]:4200/', [EVERYWHERE])).toBe(true)
    expect(isOwnAddress('http://10.1.2.4:4200/', [EVERYWHERE])).toBe(false)
  })
})

describe('a hop of an assistant\'s tab (issue 25 items 3, 4, 5)', () => {
  const shared: TabHold = { kind: 'shared' }
  const profile: TabHold = { kind: 'profile', profile: 'work', owner: 'claude' }
  const approved = new Set(['http://127.0.0.1:47001'])
  const judge = (url: string, hold: TabHold | undefined) => judgeHop(url, { ownServers: [LOOPBACK], hold, approvedOrigins: approved })

  test('the daemon never; a held tab only its approved origins; a Sandbox tab anywhere else; only web pages reach a server', () => {
    for (const hold of [undefined, shared, profile]) {
      expect(judge('http://localhost:4100/console/api/state', hold)).toEqual({ allow: false, reason: 'quire', origin: 'http://localhost:4100' })
      expect(judge('http://127.0.0.1:47001/page?x#y', hold)).toEqual({ allow: true })
      expect(judge('file:///etc/passwd', hold)).toMatchObject({ allow: false, reason: 'scheme' })
      expect(judge('data:text/html,hi', hold)).toEqual({ allow: true })
    }
    expect(judge('http://localhost:47001/whoami', undefined)).toEqual({ allow: true })
    expect(judge('http://localhost:47001/whoami', shared)).toEqual({ allow: false, reason: 'not-approved', origin: 'http://localhost:47001' })
    expect(judge('http://localhost:47001/whoami', profile)).toEqual({ allow: false, reason: 'not-approved', origin: 'http://localhost:47001' })
  })

  test('an assistant\'s own navigation asks for a new origin of a held tab: a destination, or the profile naming tab and owner', () => {
    expect(askBeforeLoading(undefined, 'tab-1', null, 'http://a.test/', 'claude')).toBeUndefined()
    expect(askBeforeLoading(shared, 'tab-1', 'http://a.test/x', 'http://a.test/y', 'claude')).toBeUndefined()
    expect(askBeforeLoading(shared, 'tab-1', null, 'file:///etc/passwd', 'claude')).toBeUndefined()
    expect(askBeforeLoading(shared, 'tab-1', null, 'http://a.test/', 'claude')).toEqual({ kind: 'destination', origin: 'http://a.test', tabId: 'tab-1' })
    expect(askBeforeLoading(shared, 'tab-1', 'http://b.test/', 'http://a.test/', 'claude')).toEqual({ kind: 'destination', origin: 'http://a.test', tabId: 'tab-1', currentOrigin: 'http://b.test' })
    expect(askBeforeLoading(profile, 'tab-2', 'http://b.test/', 'http://a.test/', 'claude')).toEqual({ kind: 'profile', origin: 'http://a.test', profile: 'work', tabId: 'tab-2' })
    expect(askBeforeLoading(profile, 'tab-2', 'http://b.test/', 'http://a.test/', 'codex')).toEqual({ kind: 'profile', origin: 'http://a.test', profile: 'work', tabId: 'tab-2', owner: 'claude' })
  })
})
