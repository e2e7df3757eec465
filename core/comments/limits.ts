/**
 * The numbers behind COMMENT_LIMIT and the page bound (TOOLS.md leaves them unstated, §16). They are chosen together:
 * a body of MAX_BODY_CHARS characters is at most 3 bytes per UTF-16 unit in UTF-8, so its base64 (COM.LIST.8) stays
 * under BODY_JSON_LIMIT, and a thread's first part (quote + body) always fits an empty page of PAGE_BUDGET bytes,
 * itself well under the MCP output bound (75,000 bytes, adapters/mcp/results.ts).
 */
export const MAX_BODY_CHARS = 10_000
/** Replies one thread may hold. */
export const MAX_REPLIES = 500
/** Changes (replies and state changes) one thread may take in all: past it the thread can no longer change. */
export const MAX_THREAD_CHANGES = 1_000
/** Characters of the anchored text a thread quotes (`quoteTruncated: true` when cut). */
export const MAX_QUOTE_CHARS = 2_000
/** Bytes of pretty-printed JSON one `list` page may take. */
export const PAGE_BUDGET = 60_000
/** A body whose JSON string literal is longer than this arrives as `bodyBase64` (COM.LIST.8). */
export const BODY_JSON_LIMIT = 40_000
/** Ids one `addresses` list may name (COM.ADDR.4). */
export const MAX_ADDRESSES = 64
