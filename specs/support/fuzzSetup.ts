/** Vitest setup file: every fast-check property, routed through `fuzzParameters` or not, runs seeded (see fuzz.ts). */
import { vi } from 'vitest'
import { configureFuzzing, fuzzBanner, fuzzTestTimeout } from './fuzz.js'

configureFuzzing()
const testTimeout = fuzzTestTimeout()
// Vitest resets this after each file, and the setup file runs again before the next.
if (testTimeout !== undefined) vi.setConfig({ testTimeout })
const banner = fuzzBanner()
if (banner) console.info(banner)
