/** Vitest setup file: every fast-check property, routed through `fuzzParameters` or not, runs seeded (see fuzz.ts). */
import { configureFuzzing, fuzzBanner } from './fuzz.js'

configureFuzzing()
const banner = fuzzBanner()
if (banner) console.info(banner)
