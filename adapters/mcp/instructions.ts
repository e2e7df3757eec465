/** The primer every MCP client receives at initialize: the recommended workflow and the rules that matter. */
export const SERVER_INSTRUCTIONS = `Quire is a headless editor that people and assistants edit together. Every change you make is journaled and can be audited and undone by the user.

Recommended workflow:
1. Call session.get_state once to learn the windows and tabs: each tab has {id, filePath, dirty, revision, kind}.
2. To change a Markdown document: document.read → reason → document.write with expected_revision set to the revision you read. A STALE answer means the user (or another assistant) changed the document: read again and redo your edit on the new text; never write stale content back.
3. For GitHub Actions YAML (kind "yaml-workflow"), change fields with workflow.apply_patch: it edits only the nodes it names and keeps every comment, anchor and key order. Check a workflow with workflow.validate (actionlint). Use document.write only for wholesale rewrites.
4. For CJK typography (spacing between CJK and Latin, full-width punctuation), call document.transform instead of rewriting the text yourself.
5. Open, save and close files and switch tabs with the workspace tool. Paths must be absolute and inside an open workspace or the folder of an open document. Opening a whole folder (workspace.open_workspace) needs the user's approval: the first call answers needsApproval — ask the user to approve it in Quire (console or \`quire approvals approve\`), wait, then retry the same call.
6. document.write saves to the tab's file by default (save: false keeps the change in the tab only). Its answer says whether the save happened (saved, save_skipped, save_error) and whether the journal holds the saved text (journaled).

Errors: domain refusals are JSON envelopes {error, message, ...}: STALE (re-read), INVALID_TAB, INVALID_PATH, NOT_WORKFLOW, INVALID_PATCH (the message says which patch and what is missing), APPROVAL_REQUIRED (ask the user), JOURNAL_BUSY / JOURNAL_DEGRADED (retry shortly), ABORTED (the user acted meanwhile: re-read), INTERNAL (re-read before writing). Argument mistakes and WRITE_BUSY are plain text.`
