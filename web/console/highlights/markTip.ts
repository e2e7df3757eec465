import { h } from '../dom.js'

/**
 * The card a marked range shows on hover (who made the change, when, which revision; or the comment): drawn by the
 * console rather than left to a `title`, so it appears at once, next to the text, and in screenshots.
 */
export function showMarkTips(host: HTMLElement): void {
  const tip = h('div', { className: 'mark-tip', attrs: { role: 'tooltip', hidden: '' } })
  document.body.append(tip)
  let current: HTMLElement | null = null
  host.addEventListener('mouseover', (event) => {
    const mark = (event.target as HTMLElement | null)?.closest<HTMLElement>('[data-tip]') ?? null
    if (mark === current) return
    current = mark
    if (!mark) {
      tip.hidden = true
      return
    }
    tip.textContent = mark.dataset.tip ?? ''
    const rect = mark.getBoundingClientRect()
    tip.style.left = `${Math.round(rect.left)}px`
    tip.style.top = `${Math.round(rect.bottom + 6)}px`
    tip.hidden = false
  })
  host.addEventListener('mouseleave', () => {
    current = null
    tip.hidden = true
  })
}
