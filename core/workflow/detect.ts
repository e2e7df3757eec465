/**
 * Whether a tab is a GitHub Actions workflow (`kind: "yaml-workflow"`), by VMark's two tests (vmark.md §6): the path
 * or the content. Both are cheap text checks; neither parses YAML.
 */

/** `.github/workflows/<name>.yml` or `.yaml`, with either path separator; a nested folder does not count (GitHub ignores it). */
export function isWorkflowPath(path: string): boolean {
  return /(?:^|[\\/])\.github[\\/]workflows[\\/][^\\/]+\.ya?ml$/.test(path)
}

/** A top-level `on:` / `jobs:` key at column 0; quoted keys count. `on:push` is a plain scalar, not a key, so a separator must follow. */
const TOP_LEVEL_ON = /^(?:on|"on"|'on')[ \t]*:(?=[ \t\r\n]|$)/m
const TOP_LEVEL_JOBS = /^(?:jobs|"jobs"|'jobs')[ \t]*:(?=[ \t\r\n]|$)/m
/** VMark's guard against text that only looks like keys (`key: ::`). */
const NOT_YAML = /^[a-zA-Z_][^\n:]*:\s*::/m

/**
 * VMark's content test: top-level `on:` and `jobs:`. YAML 1.2 only: `true:` (what YAML 1.1 reads `on:` as) is not a
 * trigger key, and neither GitHub nor this module reads the file as 1.1.
 */
export function looksLikeWorkflow(content: string): boolean {
  return TOP_LEVEL_ON.test(content) && TOP_LEVEL_JOBS.test(content) && !NOT_YAML.test(content)
}
