import { expect, test } from 'vitest'
import { eventually, useEngine } from './support/engineRig.js'

const rig = useEngine(() => ({ idleMs: 1_000 }))

test('the browser stops after the idle period, reporting its tabs closed; the next call starts it again', async () => {
  const opened = await rig.engine.open('alpha', rig.site.url('/index.html'))
  await eventually(rig, (event) => event.type === 'browser-stopped')
  expect(rig.events).toContainEqual({ type: 'tab-closed', principal: 'alpha', tabId: opened.tabId, reason: 'idle' })
  expect(rig.events).toContainEqual({ type: 'browser-stopped', reason: 'idle' })
  expect(rig.engine.running).toBe(false)
  expect(await rig.engine.tabsOf('alpha')).toEqual([])
  expect((await rig.engine.open('alpha', rig.site.url('/index.html'))).status).toBe('loaded')
})
