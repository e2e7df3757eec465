import type { TestProject } from 'vitest/node'
import { startTestPostgres } from './postgresServer.js'

declare module 'vitest' {
  export interface ProvidedContext {
    /** The `postgres` project's database (testStore.ts); absent in the default project. */
    quireTestStore?: string
  }
}

/**
 * The `postgres` project's server: a throwaway cluster (or QUIRE_TEST_POSTGRES) started once for the run, with one
 * database whose schemas are the tests' data directories' logs (testStore.ts); stopped and removed after the run.
 */
export default async function setup(project: TestProject): Promise<() => Promise<void>> {
  const server = await startTestPostgres()
  project.provide('quireTestStore', await server.createDatabase())
  return () => server.stop()
}
