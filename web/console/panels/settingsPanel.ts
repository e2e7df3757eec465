import type { PanelSetting, PanelSettingChange, PanelSettings } from '../../../adapters/http/consolePanelsApi.js'
import { h } from '../dom.js'
import { SETTING_GROUPS, type SettingLabel } from './settingLabels.js'

/** Words for the values of a choice, where the raw value says too little. */
const CHOICE_WORDS: Readonly<Record<string, Readonly<Record<string, string>>>> = {
  'cjkFormatting.quoteStyle': { curly: 'Curly “…”', corner: 'Corner 「…」', guillemets: 'Guillemets «…»' },
  'cjkFormatting.quoteToggleMode': { simple: 'Simple (on / off)', 'full-cycle': 'Full cycle through every style' },
  'cjkFormatting.consecutivePunctuationLimit': { 0: 'Off (keep every run)', 1: 'One', 2: 'Two' },
}

/**
 * The settings panel: every setting the server lists, grouped and labelled for a person, each with the control its
 * type calls for (a checkbox, a select of the allowed values, a number). A change is sent at once; the panel then
 * shows what the server stored, so a refused value springs back.
 */
export class SettingsPanel {
  readonly element = h('section', { className: 'panel settings-panel', attrs: { 'aria-label': 'Settings' } })

  constructor(private readonly onChange: (change: PanelSettingChange) => void) {}

  update(settings: PanelSettings): void {
    const byKey = new Map(settings.settings.map((setting) => [setting.key, setting]))
    const groups: HTMLElement[] = []
    for (const group of SETTING_GROUPS) {
      const rows = Object.entries(group.keys).flatMap(([key, label]) => {
        const setting = byKey.get(key)
        byKey.delete(key)
        return setting ? [this.row(setting, label)] : []
      })
      if (rows.length > 0) groups.push(h('fieldset', { className: 'setting-group' }, h('legend', { text: group.title }), ...rows))
    }
    const others = [...byKey.values()].map((setting) => this.row(setting, { label: setting.key }))
    if (others.length > 0) groups.push(h('fieldset', { className: 'setting-group' }, h('legend', { text: 'Other' }), ...others))
    this.element.replaceChildren(h('h2', { text: 'Settings' }), ...groups)
  }

  private row(setting: PanelSetting, label: SettingLabel): HTMLElement {
    const id = `setting-${setting.key.replace(/\W/g, '-')}`
    const hint = label.hint ? [h('div', { className: 'setting-hint', text: label.hint })] : []
    if (setting.type === 'boolean') {
      const box = h('input', { attrs: { type: 'checkbox', id, 'data-setting': setting.key } })
      box.checked = setting.value === true
      box.addEventListener('change', () => this.onChange({ key: setting.key, value: box.checked }))
      return h('div', { className: 'setting setting-boolean' }, box, h('label', { text: label.label, attrs: { for: id } }), ...hint)
    }
    const control = setting.type === 'choice' ? this.select(setting, id) : this.number(setting, id)
    return h('div', { className: `setting setting-${setting.type}` }, h('label', { text: label.label, attrs: { for: id } }), control, ...hint)
  }

  private select(setting: PanelSetting, id: string): HTMLSelectElement {
    const words = CHOICE_WORDS[setting.key] ?? {}
    const choices = setting.choices ?? [setting.value as string | number]
    const select = h(
      'select',
      { attrs: { id, 'data-setting': setting.key } },
      ...choices.map((choice) => h('option', { text: words[String(choice)] ?? String(choice), attrs: { value: String(choice) } })),
    )
    select.value = String(setting.value)
    select.addEventListener('change', () => {
      // The value goes back as the type the choice has: `consecutivePunctuationLimit` stores numbers.
      const picked = choices.find((choice) => String(choice) === select.value)
      if (picked !== undefined) this.onChange({ key: setting.key, value: picked })
    })
    return select
  }

  private number(setting: PanelSetting, id: string): HTMLInputElement {
    const bounds = { ...(setting.min !== undefined ? { min: String(setting.min) } : {}), ...(setting.max !== undefined ? { max: String(setting.max) } : {}) }
    const input = h('input', { attrs: { type: 'number', step: '1', id, 'data-setting': setting.key, ...bounds } })
    input.value = String(setting.value)
    input.addEventListener('change', () => {
      const value = Number(input.value)
      if (input.value.trim() !== '' && Number.isFinite(value)) this.onChange({ key: setting.key, value })
    })
    return input
  }
}
