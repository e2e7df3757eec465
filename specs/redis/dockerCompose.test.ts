import { existsSync, readFileSync } from 'node:fs'
import { join } from 'node:path'
import { describe, expect, it } from 'vitest'
import { parse } from 'yaml'
import { z } from 'zod'
import { repoRoot } from '../support/cli.js'

/**
 * docker-compose.yml (issue 17, item 4): Docker is not available where the tests run, so the file is held to what
 * Compose needs of it and to what the README promises: PostgreSQL, Redis and three Quire nodes built from this
 * repository's Dockerfile, each node on the shared log and Redis, with its own data volume, the one shared workspace
 * volume, a port of its own on loopback, and a health check on its /readyz.
 */
const read = (name: string) => readFileSync(join(repoRoot, name), 'utf8')

const volumeMount = z.string().regex(/^[a-z0-9-]+:\/[a-z/]*$/)
const healthcheck = z.object({ test: z.array(z.string()).min(2), interval: z.string(), timeout: z.string(), retries: z.number().int().positive() }).passthrough()
const service = z.object({
  image: z.string().min(1),
  build: z.string().optional(),
  command: z.array(z.string()).optional(),
  environment: z.record(z.string(), z.string()).optional(),
  volumes: z.array(volumeMount).optional(),
  ports: z.array(z.string()).optional(),
  healthcheck: healthcheck.optional(),
  depends_on: z.record(z.string(), z.object({ condition: z.enum(['service_started', 'service_healthy']) }).strict()).optional(),
  restart: z.literal('unless-stopped'),
}).strict()
const compose = z.object({ name: z.string(), services: z.record(z.string(), service), volumes: z.record(z.string(), z.null()) }).strict()

const file = compose.parse(parse(read('docker-compose.yml')))
const nodes = ['quire-1', 'quire-2', 'quire-3'] as const
const argument = (command: readonly string[], flag: string): string | undefined => {
  const index = command.indexOf(flag)
  return index === -1 ? undefined : command[index + 1]
}

describe('docker-compose.yml', () => {
  it('parses, and names PostgreSQL, Redis and three Quire nodes', () => {
    expect(Object.keys(file.services).sort()).toEqual(['postgres', 'quire-1', 'quire-2', 'quire-3', 'redis'])
    expect(file.services['postgres']!.image).toMatch(/^postgres:/)
    expect(file.services['redis']!.image).toMatch(/^redis:/)
  })

  it('builds every node from this repository, serving on the shared log and Redis', () => {
    expect(existsSync(join(repoRoot, 'Dockerfile'))).toBe(true)
    const postgres = file.services['postgres']!.environment!
    for (const name of nodes) {
      const node = file.services[name]!
      expect(node.build).toBe('.')
      expect(node.image).toBe('quire:local')
      const command = node.command!
      expect(command[0]).toBe('serve')
      const store = new URL(argument(command, '--store')!)
      expect(store.protocol).toBe('postgres:')
      expect(store.hostname).toBe('postgres')
      expect([store.username, store.password, store.pathname]).toEqual([postgres['POSTGRES_USER'], postgres['POSTGRES_PASSWORD'], `/${postgres['POSTGRES_DB']}`])
      expect(new URL(argument(command, '--redis')!).hostname).toBe('redis')
      expect(argument(command, '--host')).toBe('0.0.0.0')
      expect(node.environment?.['QUIRE_NODE_ID']).toBe(name)
      expect(node.depends_on?.['postgres']).toEqual({ condition: 'service_healthy' })
      // Redis is not needed to start: a node without it serves documents, its presence its own only.
      expect(node.depends_on?.['redis']).toEqual({ condition: 'service_started' })
    }
  })

  it('gives each node its own data directory and port, all of them the one workspace, and checks /readyz', () => {
    const data = nodes.map((name) => file.services[name]!.volumes!.find((mount) => mount.endsWith(':/data')))
    expect(new Set(data).size).toBe(3)
    for (const name of nodes) {
      const node = file.services[name]!
      expect(node.volumes).toContain('workspace:/workspace')
      const port = argument(node.command!, '--port')!
      // Published on this machine's loopback only, on the same number (the Host a client sends names it).
      expect(node.ports).toEqual([`127.0.0.1:${port}:${port}`])
      expect(node.healthcheck!.test.join(' ')).toContain(`http://127.0.0.1:${port}/readyz`)
    }
    expect(new Set(nodes.map((name) => argument(file.services[name]!.command!, '--port'))).size).toBe(3)
    // The workspace is opened once, into the shared log.
    expect(nodes.filter((name) => argument(file.services[name]!.command!, '--workspace') === '/workspace')).toEqual(['quire-1'])
  })

  it('declares every named volume it mounts, and mounts every one it declares', () => {
    const mounted = new Set(Object.values(file.services).flatMap((each) => (each.volumes ?? []).map((mount) => mount.split(':')[0]!)))
    expect([...mounted].sort()).toEqual(Object.keys(file.volumes).sort())
  })

  it('depends only on services it defines', () => {
    for (const each of Object.values(file.services)) for (const dependency of Object.keys(each.depends_on ?? {})) expect(file.services).toHaveProperty(dependency)
  })

  it("keeps the image's build context clean and the README's set-up commands as they are", () => {
    const ignored = read('.dockerignore').split('\n').filter((line) => line && !line.startsWith('#'))
    expect(ignored).toEqual(expect.arrayContaining(['.git', 'node_modules', 'dist']))
    const dockerfile = read('Dockerfile')
    expect(dockerfile).toMatch(/^FROM node:20-/m)
    expect(dockerfile).toContain('RUN npm ci')
    expect(dockerfile).toMatch(/^USER node$/m)
    const readme = read('README.md')
    expect(readme).toContain('npm ci && npm start        # runs Quire: builds it and starts the daemon on its default data directory')
    expect(readme).toContain('npm ci && npm test         # builds, type-checks and runs every test')
    expect(readme).toContain('docker compose up --build -d')
  })
})
