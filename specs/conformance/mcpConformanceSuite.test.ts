import { spawn } from 'node:child_process'
import { join } from 'node:path'
import { describe, expect, it } from 'vitest'
import { launchDaemon, REPO_ROOT } from '../support/mcpHarness.js'
import { startTokenProxy } from '../support/tokenProxy.js'

/**
 * The official MCP conformance suite (@modelcontextprotocol/conformance, pinned at 0.1.13: later releases need
 * Node 22) against the daemon's Streamable HTTP endpoint. Every active server scenario must pass except those in
 * the committed baseline, which lists only scenarios that call the suite's own fixture tools, prompts and
 * resources by name. A proxy stands in for a configured client: it adds the bearer token and maps its own address
 * in Host/Origin to the daemon's, passing any other Host/Origin through, so dns-rebinding-protection tests the
 * daemon itself.
 */
describe('official MCP conformance suite', () => {
  it('passes every active server scenario outside the fixture-tool baseline (incl. server-initialize, ping, tools-list, dns-rebinding-protection)', async () => {
    const daemon = await launchDaemon()
    const proxy = await startTokenProxy(daemon.port, daemon.token)
    try {
      const suite = spawn(
        process.execPath,
        [
          join(REPO_ROOT, 'node_modules/@modelcontextprotocol/conformance/dist/index.js'),
          'server',
          '--url', `${proxy.url}/mcp`,
          '--expected-failures', join(REPO_ROOT, 'specs/conformance/mcp-conformance-baseline.yaml'),
          '--output-dir', join(daemon.home, 'conformance-results'),
        ],
        { stdio: ['ignore', 'pipe', 'pipe'] },
      )
      let output = ''
      suite.stdout!.on('data', (chunk: Buffer) => (output += chunk.toString()))
      suite.stderr!.on('data', (chunk: Buffer) => (output += chunk.toString()))
      const code = await new Promise<number | null>((resolve) => suite.on('exit', resolve))
      for (const scenario of ['server-initialize', 'ping', 'tools-list', 'dns-rebinding-protection', 'logging-set-level']) {
        expect(output).toContain(`Running scenario: ${scenario}`)
      }
      expect(output, output.slice(-4000)).not.toMatch(/unexpected (failure|pass)/i)
      expect(code, output.slice(-4000)).toBe(0)
    } finally {
      await proxy.close()
      await daemon.stop()
    }
  }, 240_000)
})
