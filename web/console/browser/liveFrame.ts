import type { FrameBox, FrameViewport, ScreencastFrame } from '../../../adapters/http/consoleBrowserApi.js'

/** What the live view knows of the frame it shows: its size in DIPs, the bar above the page, where the page was. */
export type FrameGeometry = Omit<ScreencastFrame, 'jpegBase64'>

export interface Rect {
  readonly left: number
  readonly top: number
  readonly width: number
  readonly height: number
}

/**
 * Where on the screen (client CSS pixels) the img paints the frame: the picture keeps its aspect ratio inside the
 * element's box (object-fit: contain, centred), so it may not fill it.
 */
export function pictureRect(img: HTMLImageElement): Rect | null {
  const box = img.getBoundingClientRect()
  if (box.width === 0 || box.height === 0) return null
  const natural = { width: img.naturalWidth || box.width, height: img.naturalHeight || box.height }
  const scale = Math.min(box.width / natural.width, box.height / natural.height)
  const width = natural.width * scale
  const height = natural.height * scale
  return { left: box.left + (box.width - width) / 2, top: box.top + (box.height - height) / 2, width, height }
}

/** A box of the frame's (DIPs from the page's top left) in the picture's CSS pixels, from the picture's top left. */
export function onPicture(box: FrameBox, frame: FrameGeometry, picture: Rect): Rect {
  const sx = picture.width / frame.width
  const sy = picture.height / frame.height
  return { left: box.x * sx, top: (frame.offsetTop + box.y) * sy, width: box.width * sx, height: box.height * sy }
}

/**
 * A point on the screen as the page's viewport coordinates the person's input is dispatched at: the frame's DIPs,
 * less the bar above the page, over the pinch scale (DevTools takes input in CSS pixels of the visual viewport).
 */
export function pagePoint(clientX: number, clientY: number, frame: FrameGeometry, picture: Rect): { x: number; y: number } {
  const dipX = ((clientX - picture.left) / picture.width) * frame.width
  const dipY = ((clientY - picture.top) / picture.height) * frame.height - frame.offsetTop
  return { x: Math.round(dipX / frame.viewport.scale), y: Math.round(dipY / frame.viewport.scale) }
}

/** Whether a box measured at viewport `a` belongs on a frame showing the page at `b` (half a pixel of rounding). */
export function sameViewport(a: FrameViewport, b: FrameViewport): boolean {
  return Math.abs(a.scrollX - b.scrollX) <= 0.5 && Math.abs(a.scrollY - b.scrollY) <= 0.5 && Math.abs(a.scale - b.scale) <= 0.001 * b.scale
}
