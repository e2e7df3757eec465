import { defineConfig } from 'vitest/config'

/**
 * Two projects. `default`: every test, each data directory's log its own LevelDB, as a user's is. `postgres`: the
 * MCP conformance tests again, with every Quire process they start keeping its log in PostgreSQL
 * (specs/support/testStore.ts), so the same rules are proven on the shared store.
 */
export default defineConfig({
  test: {
    // Seeds fast-check in every test file: fixed normally, fresh under QUIRE_FUZZ=1 (specs/support/fuzz.ts).
    setupFiles: ['specs/support/fuzzSetup.ts'],
    testTimeout: 60_000,
    hookTimeout: 60_000,
    // Two cores: files run in parallel on forks, which also keeps LevelDB native handles per process.
    pool: 'forks',
    maxWorkers: 2,
    projects: [
      { extends: true, test: { name: 'default', include: ['specs/**/*.test.ts'] } },
      {
        extends: true,
        test: {
          name: 'postgres',
          include: ['specs/conformance/**/*.test.ts'],
          // The browser's rules are the browser's, whatever keeps the log: proven once, in `default`.
          exclude: ['specs/conformance/browser*.test.ts'],
          globalSetup: ['specs/support/postgresGlobalSetup.ts'],
        },
      },
    ],
  },
})
