import type { BrowserContext } from 'playwright-core'
import { chromiumLauncher } from './chromium.js'
import { chromiumUnavailable } from './chromiumUnavailable.js'

/**
 * The person's own browser profile: a persistent Chromium context whose cookies and storage live in a folder of
 * the data directory and outlast the daemon. Human tabs and the Shared posture's AI tabs use it (BR.GEN.11 keeps
 * the Sandbox posture's tabs out of it).
 *
 * Playwright opens a persistent context only through `launchPersistentContext`, which starts a Chromium process of
 * its own: so the person's profile is a second browser beside the Sandbox one, started only when a human tab or a
 * Shared-posture tab is first opened, and stopped with the engine. Chromium locks a profile folder while it runs,
 * which is fine: one daemon holds one data directory.
 */
export interface PersonProfileOptions {
  readonly profileDir: string
  readonly executablePath: string
  readonly args: readonly string[]
  readonly viewport: { readonly width: number; readonly height: number }
  /** Called once for each context started, before any tab opens in it. */
  readonly prepare: (context: BrowserContext) => void
  /** The profile's browser went away without being asked to (a crash, a kill). */
  readonly onCrash: () => void
  /** What the profile is called in errors (default: the person's browser profile). */
  readonly label?: string
}

export class PersonProfile {
  readonly #options: PersonProfileOptions
  #context: Promise<BrowserContext> | undefined
  #closing = false

  constructor(options: PersonProfileOptions) {
    this.#options = options
  }

  get running(): boolean {
    return this.#context !== undefined
  }

  context(): Promise<BrowserContext> {
    if (this.#context) return this.#context
    const { profileDir, executablePath, args, viewport } = this.#options
    const launching = chromiumLauncher().then((chromium) => chromium.launchPersistentContext(profileDir, {
      executablePath, headless: true, args: [...args], viewport, acceptDownloads: false, serviceWorkers: 'block',
    })).then(
      (context) => {
        context.on('close', () => {
          if (this.#context !== launching || this.#closing) return
          this.#context = undefined
          this.#options.onCrash()
        })
        this.#options.prepare(context)
        return context
      },
      (error: Error) => {
        this.#context = undefined
        throw chromiumUnavailable(this.#options.label ?? "the person's browser profile", executablePath, error)
      },
    )
    this.#context = launching
    return launching
  }

  async close(): Promise<void> {
    const pending = this.#context
    if (!pending) return
    this.#closing = true
    this.#context = undefined
    try {
      const context = await pending.catch(() => undefined)
      await context?.close()
    } finally {
      this.#closing = false
    }
  }
}
