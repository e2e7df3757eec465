import { defineConfig } from 'vitest/config'

export default defineConfig({
  test: {
    include: ['specs/**/*.test.ts'],
    testTimeout: 60_000,
    hookTimeout: 60_000,
    // Two cores: files run in parallel on forks, which also keeps LevelDB native handles per process.
    pool: 'forks',
    maxWorkers: 2,
  },
})
