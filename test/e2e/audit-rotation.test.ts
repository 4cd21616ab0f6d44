/**
 * Issue 33: the audit file rotated away while the server runs (deleted, or renamed as logrotate
 * does without copytruncate, or replaced by a new file) is opened again at its path before the
 * next record, so records never go silently to a file nobody looks at; when no file can be opened
 * there, the call is refused and does nothing.
 */
import {
  chmodSync,
  existsSync,
  readFileSync,
  renameSync,
  statSync,
  symlinkSync,
  unlinkSync,
  writeFileSync
} from "node:fs"
import { join } from "node:path"
import { assert, describe, it } from "vitest"
import { harness } from "../support/harness.ts"
import { call, textOf } from "../support/mcp.ts"
import type { TmuxWorld } from "../support/tmux.ts"

const h = harness("audit-rotate")

const records = (path: string): Array<any> =>
  readFileSync(path, "utf8").split("\n").filter((line) => line !== "").map((line) => JSON.parse(line))

/** Each record's event, call number and tool, in order. */
const summary = (path: string): Array<[string, number | undefined, string | undefined]> =>
  records(path).map((record) => [record.event, record.call, record.tool])

const firstCall: Array<[string, number | undefined, string | undefined]> = [
  ["tool_call_intent", 1, "list_sessions"],
  ["tool_call_outcome", 1, "list_sessions"]
]

const serve = async (world: TmuxWorld) => {
  const log = join(world.dir, "audit.jsonl")
  const c = await h.connect(world, { LIBTMUX_AUDIT_LOG: log, LIBTMUX_TOOLSETS: "inspect,execute" })
  assert.isUndefined((await call(c, "list_sessions")).isError)
  assert.deepStrictEqual(summary(log), firstCall)
  return { c, log }
}

describe("the audit file rotated away while the server runs", () => {
  it("deleted: the next call's records are in a new 0600 file at the path, which says why it began", async () => {
    const world = h.world()
    const { c, log } = await serve(world)
    unlinkSync(log)
    assert.isUndefined((await call(c, "list_sessions")).isError)
    assert.strictEqual(statSync(log).mode & 0o777, 0o600)
    assert.deepStrictEqual(summary(log), [
      ["audit_reopened", undefined, undefined],
      ["tool_call_intent", 2, "list_sessions"],
      ["tool_call_outcome", 2, "list_sessions"]
    ])
    assert.deepInclude(records(log)[0], { path: log, reason: "the file was deleted or renamed" })
  })

  it("renamed: the next call's records are at the path, and the renamed file keeps only the old ones", async () => {
    const world = h.world()
    const { c, log } = await serve(world)
    renameSync(log, `${log}.1`)
    assert.isUndefined((await call(c, "list_sessions")).isError)
    assert.isUndefined((await call(c, "list_sessions")).isError)
    assert.deepStrictEqual(summary(`${log}.1`), firstCall)
    assert.deepStrictEqual(summary(log), [
      ["audit_reopened", undefined, undefined],
      ["tool_call_intent", 2, "list_sessions"],
      ["tool_call_outcome", 2, "list_sessions"],
      ["tool_call_intent", 3, "list_sessions"],
      ["tool_call_outcome", 3, "list_sessions"]
    ])
  })

  it("renamed, and a new file made in its place (logrotate's create): records go there, set to 0600", async () => {
    const world = h.world()
    const { c, log } = await serve(world)
    renameSync(log, `${log}.1`)
    writeFileSync(log, "")
    chmodSync(log, 0o644)
    assert.isUndefined((await call(c, "list_sessions")).isError)
    assert.strictEqual(statSync(log).mode & 0o777, 0o600)
    assert.deepStrictEqual(summary(`${log}.1`), firstCall)
    assert.deepStrictEqual(summary(log)[0], ["audit_reopened", undefined, undefined])
    assert.deepInclude(records(log)[0], { reason: "the file was replaced by another file" })
    assert.deepStrictEqual(summary(log).slice(1), [
      ["tool_call_intent", 2, "list_sessions"],
      ["tool_call_outcome", 2, "list_sessions"]
    ])
  })

  it("renamed, a symbolic link put there: calls are refused and do nothing until a file can be opened", async () => {
    const world = h.world()
    const { c, log } = await serve(world)
    const pane = world.tmux("libtmux-mcp", "new-session", "-d", "-P", "-F", "#{pane_id}", "cat").trim()
    renameSync(log, `${log}.1`)
    const elsewhere = join(world.dir, "elsewhere.txt")
    writeFileSync(elsewhere, "")
    symlinkSync(elsewhere, log)
    const refused = await call(c, "send_keys", { pane_id: pane, keys: "MARKER-TYPED" })
    assert.isTrue(refused.isError)
    assert.strictEqual(refused._meta?.["com.git-pull.libtmux-mcp/error"], "AuditUnavailable")
    assert.strictEqual(
      textOf(refused),
      `send_keys did nothing: its audit record could not be written (${log}: the audit file at this path was ` +
        "replaced by another file, and a new one cannot be opened there: it is a symbolic link (name the file " +
        "itself); give a regular file or a path that does not exist yet); no call acts without its record. Fix " +
        "the audit destination (LIBTMUX_AUDIT_LOG, or a client that reads the server's stderr) and call again"
    )
    assert.notInclude(world.tmux("libtmux-mcp", "capture-pane", "-p", "-t", pane), "MARKER-TYPED")
    assert.strictEqual(readFileSync(elsewhere, "utf8"), "")
    assert.deepStrictEqual(summary(`${log}.1`), firstCall)
    unlinkSync(log)
    assert.isUndefined((await call(c, "list_sessions")).isError)
    assert.isTrue(existsSync(log))
    // Call 2 was the refused one: its record was written nowhere.
    assert.deepStrictEqual(summary(log).slice(1), [
      ["tool_call_intent", 3, "list_sessions"],
      ["tool_call_outcome", 3, "list_sessions"]
    ])
  })
})
