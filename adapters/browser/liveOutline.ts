import type { Page } from 'playwright-core'
import { liveSession } from './liveView.js'
import type { FrameBox, FrameViewport, LocatedOnFrames } from './personSide.js'

const LOCATE_CAP = 5
/** How long one element may take to give its box (a busy machine is slow, an element that left is not coming). */
const BOX_TIMEOUT_MS = 2_000
/** A page that keeps moving while it is measured gets no outline rather than one where the element was. */
const ATTEMPTS = 3

interface Measured {
  readonly viewport: FrameViewport
  /** DIPs per CSS pixel of the visual viewport: the pinch scale times the page zoom. */
  readonly dipsPerPixel: number
}

/** Where the visual viewport is, from DevTools' layout metrics (CSS pixels, its scale, the page zoom). */
async function measure(page: Page): Promise<Measured> {
  const cdp = await liveSession(page)
  const { cssVisualViewport: viewport } = await cdp.send('Page.getLayoutMetrics')
  const zoom = viewport.zoom ?? 1
  return { viewport: { scrollX: viewport.pageX * zoom, scrollY: viewport.pageY * zoom, scale: viewport.scale }, dipsPerPixel: viewport.scale * zoom }
}

const same = (a: Measured, b: Measured): boolean =>
  a.viewport.scrollX === b.viewport.scrollX && a.viewport.scrollY === b.viewport.scrollY && a.dipsPerPixel === b.dipsPerPixel

/**
 * Where the elements an assistant asks to act on (by role and exact name, at most 5) are on the live view's frames,
 * so the person's view can outline them next to the request. Playwright's role matching, in its utility world: close
 * to the agent's, and only a pointer for the person (the act matches again when it runs). Playwright's boxes are CSS
 * pixels from the visual viewport's top left; the frames, like the person's input, are DIPs of that viewport, so the
 * boxes are scaled by the pinch scale and the page zoom. They come with the viewport they were measured at: the
 * console draws them only over frames showing the page there.
 */
export async function locateOnFrames(page: Page, role: string, name: string): Promise<LocatedOnFrames> {
  let before = await measure(page)
  for (let attempt = 0; attempt < ATTEMPTS; attempt++) {
    const boxes = await boxesOf(page, role, name)
    const after = await measure(page)
    if (same(before, after)) return { viewport: after.viewport, boxes: boxes.map((box) => scaled(box, after.dipsPerPixel)) }
    before = after
  }
  return { viewport: before.viewport, boxes: [] }
}

async function boxesOf(page: Page, role: string, name: string): Promise<FrameBox[]> {
  try {
    const matches = page.getByRole(role as Parameters<Page['getByRole']>[0], { name, exact: true })
    const count = Math.min(LOCATE_CAP, await matches.count())
    const boxes = await Promise.all(Array.from({ length: count }, (_, index) => matches.nth(index).boundingBox({ timeout: BOX_TIMEOUT_MS }).catch(() => null)))
    return boxes.filter((box) => box !== null)
  } catch {
    // A role Playwright does not know, or a page between documents: nothing to outline.
    return []
  }
}

function scaled(box: FrameBox, factor: number): FrameBox {
  return { x: box.x * factor, y: box.y * factor, width: box.width * factor, height: box.height * factor }
}
