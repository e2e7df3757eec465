import { defineConfig } from 'vitest/config'

export default defineConfig({
  test: {
    include: ['specs/**/*.test.ts'],
    // Seeds fast-check in every test file: fixed normally, fresh under QUIRE_FUZZ=1 (specs/support/fuzz.ts).
    setupFiles: ['specs/support/fuzzSetup.ts'],
    testTimeout: 60_000,
    hookTimeout: 60_000,
    // Two cores: files run in parallel on forks, which also keeps LevelDB native handles per process.
    pool: 'forks',
    maxWorkers: 2,
  },
})
