import type { CDPSession, Page } from 'playwright-core'
import { BrowserError } from './errors.js'
import type { PersonInput, ScreencastFrame } from './personSide.js'

/**
 * The person's live view of a tab and their hands on it: the compositor's frames through DevTools' screencast, and
 * mouse, wheel and key events dispatched as if from the real input devices (the page cannot tell them from a
 * person's at a real window, which is the point: the person is taking over). Nothing here reads the DOM or runs
 * page script.
 */

const FRAME_QUALITY = 60
const MAX_TEXT = 10_000
const MAX_COORDINATE = 100_000

/** Windows virtual key codes of the keys that type no character; without one, Chromium ignores Enter, arrows, … */
const KEY_CODES: Readonly<Record<string, number>> = {
  Backspace: 8, Tab: 9, Enter: 13, Shift: 16, Control: 17, Alt: 18, Pause: 19, CapsLock: 20, Escape: 27, ' ': 32,
  PageUp: 33, PageDown: 34, End: 35, Home: 36, ArrowLeft: 37, ArrowUp: 38, ArrowRight: 39, ArrowDown: 40,
  Insert: 45, Delete: 46, Meta: 91, F1: 112, F2: 113, F3: 114, F4: 115, F5: 116, F6: 117, F7: 118, F8: 119, F9: 120,
  F10: 121, F11: 122, F12: 123,
}
/** What a key types when pressed alone: Enter a carriage return, a printable key itself. */
const KEY_TEXT: Readonly<Record<string, string>> = { Enter: '\r', Tab: '' }
const MODIFIER_ALT_CTRL_META = 1 | 2 | 4

const liveSessions = new WeakMap<Page, Promise<CDPSession>>()

/** The DevTools session the person's input goes through (and the live view's measurements), one per page. */
export function liveSession(page: Page): Promise<CDPSession> {
  let session = liveSessions.get(page)
  if (!session) {
    session = page.context().newCDPSession(page)
    // A failed start must not stay cached: the next call tries again.
    session.catch(() => liveSessions.delete(page))
    liveSessions.set(page, session)
  }
  return session
}

/**
 * Streams the tab's rendering: `onFrame` gets each picture the compositor draws (only when something changed, so a
 * still page sends one), with where the page was in it. Each frame is acknowledged at once, which lets Chromium send
 * the next. Resolves with the stopper once the first frame was asked for.
 */
export async function startScreencast(page: Page, onFrame: (frame: ScreencastFrame) => void): Promise<() => Promise<void>> {
  const cdp = await page.context().newCDPSession(page)
  cdp.on('Page.screencastFrame', ({ data, metadata, sessionId }) => {
    void cdp.send('Page.screencastFrameAck', { sessionId }).catch(() => undefined)
    onFrame({
      jpegBase64: data, width: Math.round(metadata.deviceWidth), height: Math.round(metadata.deviceHeight), offsetTop: metadata.offsetTop,
      viewport: { scrollX: metadata.scrollOffsetX ?? 0, scrollY: metadata.scrollOffsetY ?? 0, scale: metadata.pageScaleFactor },
    })
  })
  const viewport = page.viewportSize() ?? { width: 1280, height: 800 }
  await cdp.send('Page.startScreencast', { format: 'jpeg', quality: FRAME_QUALITY, maxWidth: viewport.width, maxHeight: viewport.height, everyNthFrame: 1 })
  let stopped = false
  return async () => {
    if (stopped) return
    stopped = true
    await cdp.send('Page.stopScreencast').catch(() => undefined)
    await cdp.detach().catch(() => undefined)
  }
}

function coordinate(value: number, what: string): number {
  if (!Number.isFinite(value) || Math.abs(value) > MAX_COORDINATE) throw new BrowserError('INVALID_ARGUMENT', `${what} must be a finite number of CSS pixels`)
  return value
}

function modifiersOf(modifiers: number | undefined): number {
  if (modifiers === undefined) return 0
  if (!Number.isInteger(modifiers) || modifiers < 0 || modifiers > 15) throw new BrowserError('INVALID_ARGUMENT', 'modifiers is a bit mask from 0 to 15 (Alt 1, Ctrl 2, Meta 4, Shift 8)')
  return modifiers
}

const BUTTON_MASK = { left: 1, right: 2, middle: 4 } as const

/** Sends one of the person's input events to the page, as the real input devices would. */
export async function dispatchPersonInput(page: Page, input: PersonInput): Promise<void> {
  const cdp = await liveSession(page)
  switch (input.kind) {
    case 'mouse': {
      const button = input.button ?? 'left'
      const clickCount = input.clickCount ?? (input.action === 'move' ? 0 : 1)
      if (!Number.isInteger(clickCount) || clickCount < 0 || clickCount > 3) throw new BrowserError('INVALID_ARGUMENT', 'clickCount is 0 to 3')
      await cdp.send('Input.dispatchMouseEvent', {
        type: input.action === 'move' ? 'mouseMoved' : input.action === 'down' ? 'mousePressed' : 'mouseReleased',
        x: coordinate(input.x, 'x'), y: coordinate(input.y, 'y'), modifiers: modifiersOf(input.modifiers),
        button: input.action === 'move' ? 'none' : button, buttons: input.action === 'down' ? BUTTON_MASK[button] : 0, clickCount,
      })
      return
    }
    case 'wheel':
      await cdp.send('Input.dispatchMouseEvent', {
        type: 'mouseWheel', x: coordinate(input.x, 'x'), y: coordinate(input.y, 'y'),
        deltaX: coordinate(input.deltaX, 'deltaX'), deltaY: coordinate(input.deltaY, 'deltaY'), modifiers: modifiersOf(input.modifiers),
      })
      return
    case 'key': {
      if (input.key.length === 0 || input.key.length > 32) throw new BrowserError('INVALID_ARGUMENT', 'key is a KeyboardEvent.key value')
      const modifiers = modifiersOf(input.modifiers)
      const printable = [...input.key].length === 1
      // A shortcut (Ctrl, Alt or Meta held) types nothing; a printable key alone types itself.
      const text = (modifiers & MODIFIER_ALT_CTRL_META) !== 0 ? '' : printable ? input.key : (KEY_TEXT[input.key] ?? '')
      const virtualKey = KEY_CODES[input.key] ?? (printable && /^[a-z0-9]$/i.test(input.key) ? input.key.toUpperCase().charCodeAt(0) : 0)
      await cdp.send('Input.dispatchKeyEvent', {
        type: input.action === 'up' ? 'keyUp' : text === '' ? 'rawKeyDown' : 'keyDown',
        key: input.key, code: input.code, modifiers, windowsVirtualKeyCode: virtualKey,
        ...(input.action === 'down' && text !== '' ? { text, unmodifiedText: text } : {}),
      })
      return
    }
    case 'text':
      if (input.text.length > MAX_TEXT) throw new BrowserError('INVALID_ARGUMENT', `text is at most ${MAX_TEXT} characters at once`)
      await cdp.send('Input.insertText', { text: input.text })
      return
  }
}
