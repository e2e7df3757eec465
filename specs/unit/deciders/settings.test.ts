import { describe, it } from 'vitest'
import { USER } from '../../../core/events/actor.js'
import { decideSettings, type SetSetting } from '../../../core/settings/decider.js'
import { evolveSettings, initialSettings } from '../../../core/settings/settingsState.js'
import type { Settings } from '../../../core/settings/events.js'
import { deciderSpec } from '../../support/decider.js'

const settings = deciderSpec<SetSetting, Settings>('settings', decideSettings, evolveSettings, initialSettings)
const changed = (key: string, value: unknown) => ({ type: 'setting.changed', actor: USER, data: { key, value } })

describe('the settings decider', () => {
  it('given the defaults, when autoApproveSaves is set on, then one setting.changed', () => {
    settings.given([]).when({ type: 'set', key: 'autoApproveSaves', value: true, actor: USER }).then([changed('autoApproveSaves', true)])
  })

  it('given autoApproveSaves on, when it is set on again, then nothing is decided', () => {
    settings.given([changed('autoApproveSaves', true)]).when({ type: 'set', key: 'autoApproveSaves', value: true, actor: USER }).then([])
  })

  it('given the defaults, when a nested leaf is set, then the event names the dotted key', () => {
    settings.given([]).when({ type: 'set', key: 'cjkFormatting.quoteStyle', value: 'corner', actor: USER }).then([changed('cjkFormatting.quoteStyle', 'corner')])
  })

  it('given anything, when an unknown key or a value of the wrong type is set, then INVALID_ARGUMENT names what is known', () => {
    settings.given([]).when({ type: 'set', key: 'noSuchSetting', value: true, actor: USER }).thenRefuses('INVALID_ARGUMENT', /known settings: .*autoApproveSaves/)
    settings.given([]).when({ type: 'set', key: 'autoApproveSaves', value: 'yes', actor: USER }).thenRefuses('INVALID_ARGUMENT', /not a valid value/)
  })
})
