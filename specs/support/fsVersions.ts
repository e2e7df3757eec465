/**
 * Deterministic, self-describing file contents for crash tests: version k starts with `version k\n` and has a
 * length fixed by k, so any prefix, mix or tail of two versions is recognisably not a whole version.
 */
export function versionContent(version: number): string {
  const size = 64 * 1024 + ((version * 7919) % 32) * 64 * 1024
  const header = `version ${version}\n`
  const line = `${version} `.repeat(16) + '\n'
  return (header + line.repeat(Math.ceil(size / line.length))).slice(0, size - 4) + 'end\n'
}

/** The version `content` is exactly, or undefined if it is not a complete version. */
export function parseVersion(content: string): number | undefined {
  const match = /^version (\d+)\n/.exec(content)
  if (!match) return undefined
  const version = Number(match[1])
  return content === versionContent(version) ? version : undefined
}
