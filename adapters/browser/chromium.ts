import type { BrowserType } from 'playwright-core'

let loading: Promise<BrowserType> | undefined

/**
 * playwright-core's Chromium launcher, loaded on the first launch rather than with the engine: every `quire` command
 * and every daemon builds an engine, most never open a page, and the library costs about half a second of CPU to load.
 */
export function chromiumLauncher(): Promise<BrowserType> {
  loading ??= import('playwright-core').then((module) => module.chromium)
  return loading
}
