import { randomBytes } from 'node:crypto'
import { openQuire, type Quire, type QuireOptions } from '../../adapters/host/quire.js'
import { usePostgresDatabase } from '../support/postgresServer.js'
import { useTempHomes } from '../support/tempHome.js'

/**
 * For a test file of several Quire nodes on one machine: a PostgreSQL database made for the file (a throwaway
 * cluster, or QUIRE_TEST_POSTGRES) and `cluster(n)`, n nodes each with a data directory of its own, sharing one log
 * in a fresh schema. Every node is closed by `closeNodes` (call it in afterEach).
 */
export function useNodes(): (count: number) => Promise<Quire[]> {
  const cluster = useNodesWith()
  return (count) => cluster(...Array.from({ length: count }, (): QuireOptions => ({})))
}

/** As `useNodes`, each node opened with options of its own (a log whose writes can be held, say). */
export function useNodesWith(): (...options: QuireOptions[]) => Promise<Quire[]> {
  const database = usePostgresDatabase()
  const newHome = useTempHomes()
  return async (...options) => {
    const schema = `nodes_${randomBytes(6).toString('hex')}`
    const store = `${database()}${database().includes('?') ? '&' : '?'}schema=${schema}`
    const nodes: Quire[] = []
    // One after another: the first creates the schema, the rest find it.
    for (const each of options) {
      const node = await openQuire(await newHome(), { ...each, store, watchDisk: false })
      onTestFinishedClose([node])
      nodes.push(node)
    }
    return nodes
  }
}

let opened: Quire[] = []
function onTestFinishedClose(nodes: Quire[]): void {
  opened.push(...nodes)
}

/** Closes the nodes the last test opened (call in afterEach). */
export async function closeNodes(): Promise<void> {
  const closing = opened
  opened = []
  await Promise.allSettled(closing.map((node) => node.close()))
}

/** Polls `condition` until it holds (another node's events arrive through NOTIFY), failing after `ms`. */
export async function eventually(condition: () => boolean | Promise<boolean>, ms = 10_000): Promise<void> {
  const deadline = Date.now() + ms
  while (!(await condition())) {
    if (Date.now() > deadline) throw new Error('the other node never caught up')
    await new Promise<void>((resolve) => setTimeout(resolve, 5))
  }
}
