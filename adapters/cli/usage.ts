/** A mistake in how the command was called: printed with the usage, exit status 2. */
export class UsageError extends Error {
  override name = 'UsageError'
}

export const USAGE = `usage: quire [--home DIR] <command> [options]

The data directory is --home DIR, else $QUIRE_HOME, else $XDG_DATA_HOME/quire (~/.local/share/quire).

commands:
  status                  (the default) the data directory, which process owns it (pid, address, a console
                          link) or that none runs, and what its log holds
  serve [--port N] [--workspace DIR]... [--store postgres://...] [--redis redis://...]
        [--host 127.0.0.1|0.0.0.0] [--allow-host NAME]...
                          run the daemon: owns the data directory, serves MCP (Streamable HTTP) at
                          http://127.0.0.1:PORT/mcp; writes PORT:TOKEN to the 0600 file DIR/port. Without
                          --port it takes the previous run's port again, or a free one when that is taken.
                          --store (or $QUIRE_STORE) keeps the log in PostgreSQL, shared by every node serving
                          from it (each node with its own data directory); without it the log is DIR's own.
                          --redis (or $QUIRE_REDIS) shares presence among the nodes ($QUIRE_NODE_ID names
                          this one). --host 0.0.0.0 listens on every address; --allow-host lets requests
                          name the node so (a load balancer's name), besides 127.0.0.1 and localhost
  mcp [--workspace DIR]...
                          MCP over stdio for an AI client: attaches to the running daemon, else runs the core
                          embedded; QUIRE_TOKEN (from \`agent add\`) names the agent
  agent add NAME          print a new token for an AI client (its principal on every event)
  agent list              every agent: name, when added, live or revoked (never a token), and
                          its MCP sessions open on the daemon (id, client, last request)
  agent revoke NAME       revoke the agent's token; its open MCP sessions end
  agent end-session NAME [SESSION]
                          end one of the agent's open MCP sessions (its id from \`agent list\`),
                          or all of them; the token stays live
  approvals [list | approve ID [--scope once|site|navigation] | deny ID]
                          the person's side of every approval an assistant asked for
  settings [list | set KEY VALUE]
                          the person's settings, e.g. cjkFormatting.quoteStyle corner for the cjk-format transform
  history PATH_OR_ID      a document's opens and saves (assistants' marked (mcp)) with revisions, AI writes
                          (NOT APPLIED when aborted), restores, moves, reviews and typing sessions; a path
                          the document left (saved elsewhere, its file renamed) finds it too
  review list PATH_OR_ID [--all] [--json]
                          the document's pending AI changes (--all: every one): id, agent, time, revision,
                          characters inserted and deleted, state (per hunk when it has several)
  review keep|undo|redo PATH_OR_ID CHANGE_ID [--hunk N]...
                          keep a change (or hunks of it) as it is; undo it, keeping everything anyone else
                          typed, even inside it; redo an undo
  review undo PATH_OR_ID --agent NAME [--since TIME_OR_REVISION]
                          undo every pending change of one assistant (since 2h, 2026-12-05T10:00Z or rev-…)
  review mark PATH_OR_ID  the console's "Mark all reviewed": every AI change up to the document's current revision
                          is kept, which empties its review backlog
  divergence keep|reload PATH_OR_ID
                          a file changed on disk under unsaved changes: keep the tab's text, or reload the file's
  comments list|add|reply|resolve|reopen|delete PATH_OR_ID ...
                          review threads: list; add --from N --to N BODY (anchored to those character
                          offsets); reply COMMENT_ID BODY; resolve|reopen|delete COMMENT_ID
  coherence status [ROOT] | edges [ROOT]
                          a workspace's coherence ledger (.vmark/): its status, and the derived documents gone
                          stale since their sources changed (ROOT defaults to the only open workspace)
  coherence grants | grant AGENT [--scope accept-newer,waive] [--days 1|7|30] | revoke GRANT_ID  [--root ROOT]
                          delegations: let one agent accept newer sources or waive stale edges for you, for 1, 7
                          (default) or 30 days; grants lists each with what it authorized
  coherence trust|distrust WRITER
                          whether the delegations in a VMark writer's segment (.vmark/ledger/WRITER.jsonl) count
                          as yours; by default only those you make in Quire do
  browser profiles | share PROFILE --owner AGENT --with AGENT | unshare PROFILE --owner AGENT --with AGENT
                          assistants' named browser profiles, each its agent's own (never a login shown);
                          share lets agent WITH open OWNER's profile, logins included, until unshare
  log [--actor NAME] [--type T]... [--doc PATH_OR_ID] [--since TIME] [--until TIME] [--after POS]
      [--stream S] [--limit N] [--no-keystrokes] [--json]
                          events oldest first: position, time, actor, type, stream and a summary; writes
                          that did not apply are marked NOT APPLIED. --actor: an agent's name, person, disk
                          or system; --type: a type or a prefix ending in . (repeatable); --doc: by id or
                          any path it had; TIME: ISO 8601 or how long ago (30m, 2h, 3d); --after POS: after
                          that log position (so is a whole number given to --since); --no-keystrokes: the
                          person's typing as one line per session; --json: one JSON object per line
  replay --doc PATH_OR_ID [--at REVISION]
                          the document's exact content at REVISION (default: now), and nothing else
  diff PATH_OR_ID REV_A [REV_B] [--words]
                          a unified diff of the document between two revisions (REV_B default: now);
                          --words: word by word, [-removed-]{+added+}
  blame PATH_OR_ID [--at REV] [--json]
                          each line with who last changed it (an agent's name, person, disk, system) and
                          when; --json: the lines and the spans (character ranges) of each change
  verify [--checkpoint] [--against POSITION:HASH]
                          rebuild every projection from the log and compare it with the live state, each
                          read model with a fresh rebuild, and recompute the log's hash chain (naming the
                          first record changed, removed, inserted or reordered); exit 0 when all hold, 1 with
                          a summary of what differs or is damaged. --checkpoint: print the chain's head to
                          keep elsewhere; --against: prove the log still extends a checkpoint kept before
  rebuild [NAME]...       drop the read models (audit, history; all when none named) and fold them again
                          from the log
  migrate --to postgres://… [--from DIR] [--schema NAME]
                          copy the LevelDB log of DIR (default: the data directory) into an empty PostgreSQL
                          log (schema NAME, or ?schema= in the URL as --store takes it; default quire) event
                          for event, then compare both: counts, stream heads and a hash over every event;
                          snapshots are rebuilt there, not copied
  ingest-trace FILE       replay a josephg editing trace (gzip JSON) as Yjs peer edits, one event per
                          transaction; the last line printed is the new document's id
  doc create FILE [--kind markdown|yaml-workflow]
                          create a document holding FILE's content; prints its id
  doc write ID_OR_PATH FILE [--expected-revision REV]
                          replace the document's content with FILE's (journaled, as an AI write would be)
  doc list                every document: id, kind, revision, dirty, path or title
  help                    this text`
