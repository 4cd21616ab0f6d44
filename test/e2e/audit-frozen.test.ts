/**
 * Issue 33: a frozen file system under the audit file (fsfreeze(8): every write to it waits until
 * the thaw) holds only the audit's own writer. Pings, calls that write no audit record and the
 * stdio wire keep being answered; the call whose intent record is stuck is refused after the
 * bound and does nothing, later calls are refused at once, and after the thaw the late intent
 * record is followed by an outcome record saying its call did nothing. Needs a loop-mounted ext4
 * file system, which only root can make.
 */
import { execFileSync } from "node:child_process"
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { assert, describe, it } from "vitest"
import { harness } from "../support/harness.ts"
import { call, textOf } from "../support/mcp.ts"
import { until } from "../support/poll.ts"

const h = harness("audit-frozen")
const socket = "libtmux-mcp"

/** A fresh 8 MiB ext4 file system in `dir`, loop-mounted at `dir/mnt`; false when that cannot be done. */
const mountExt4 = (dir: string): boolean => {
  try {
    execFileSync("truncate", ["-s", "8M", join(dir, "fs.img")], { stdio: "ignore" })
    execFileSync("mkfs.ext4", ["-q", "-F", join(dir, "fs.img")], { stdio: "ignore" })
    mkdirSync(join(dir, "mnt"))
    execFileSync("mount", ["-o", "loop", join(dir, "fs.img"), join(dir, "mnt")], { stdio: "ignore" })
    return true
  } catch {
    return false
  }
}

// Tried once at load (mounted, frozen and thawed), so the test says up front why it does not run.
const canFreeze = (() => {
  const probe = mkdtempSync(join(tmpdir(), "libtmux-mcp-freeze-"))
  try {
    if (!mountExt4(probe)) return false
    try {
      execFileSync("fsfreeze", ["-f", join(probe, "mnt")], { stdio: "ignore" })
      execFileSync("fsfreeze", ["-u", join(probe, "mnt")], { stdio: "ignore" })
      return true
    } catch {
      return false
    } finally {
      execFileSync("umount", [join(probe, "mnt")])
    }
  } finally {
    rmSync(probe, { recursive: true, force: true })
  }
})()

const records = (path: string): Array<any> =>
  readFileSync(path, "utf8").split("\n").filter((line) => line !== "").map((line) => JSON.parse(line))

describe("the audit file on a frozen file system", () => {
  const title = "holds only the audit's writer: pings and unaudited requests are answered, the stuck call " +
    "is refused after 5 s and does nothing, later calls at once, and the late record gets its outcome"
  it.skipIf(!canFreeze)(
    canFreeze ? title : `${title} (skipped: cannot loop-mount and freeze an ext4 file system; it needs root)`,
    async () => {
      const world = h.world()
      assert.isTrue(mountExt4(world.dir))
      const mnt = join(world.dir, "mnt")
      const log = join(mnt, "audit.jsonl")
      const pane = world.tmux(socket, "new-session", "-d", "-P", "-F", "#{pane_id}", "cat").trim()
      let frozen = false
      try {
        const c = await h.connect(world, { LIBTMUX_AUDIT_LOG: log, LIBTMUX_TOOLSETS: "inspect,execute" })
        assert.isUndefined((await call(c, "list_sessions")).isError)
        execFileSync("fsfreeze", ["-f", mnt])
        frozen = true
        let answered = false
        const stuck = call(c, "send_keys", { pane_id: pane, keys: "MARKER-TYPED" }, { timeout: 60_000 }).then(
          (result) => {
            answered = true
            return result
          }
        )
        // While the audit write hangs: the wire answers pings (each within 1 s), the tool list and a
        // resource read.
        for (let i = 0; i < 20; i++) await c.client.ping({ timeout: 1_000 })
        const tools = await c.client.listTools(undefined, { timeout: 3_000 })
        assert.include(tools.tools.map((tool) => tool.name), "send_keys")
        const read = await c.client.readResource({ uri: "tmux://capabilities" }, { timeout: 3_000 })
        assert.deepInclude(JSON.parse((read.contents[0] as { text: string }).text).audit, { path: log })
        assert.isFalse(answered, "the stuck call was answered before the pings were done")

        // Its answer names the 5 s bound it waited out.
        const refused = await stuck
        assert.isTrue(refused.isError)
        assert.strictEqual(refused._meta?.["com.git-pull.libtmux-mcp/error"], "AuditUnavailable")
        assert.strictEqual(
          textOf(refused),
          `send_keys did nothing: its audit record could not be written (${log}: the write did not complete ` +
            "within 5 s (is the file system frozen or stalled?); should it complete later, an outcome record " +
            "saying this call did nothing follows it); no call acts without its record. Fix the audit " +
            "destination (LIBTMUX_AUDIT_LOG, or a client that reads the server's stderr) and call again"
        )
        // At once: within 1 s, not after another 5 s wait.
        const atOnce = await call(c, "list_sessions", {}, { timeout: 1_000 })
        assert.strictEqual(atOnce._meta?.["com.git-pull.libtmux-mcp/error"], "AuditUnavailable")
        assert.match(textOf(atOnce), /audit\.jsonl: an audit write has been pending for \d+(\.\d)? s \(is the file/)
        assert.include(textOf(atOnce), "(is the file system frozen or stalled?); this call's record was not queued)")
        assert.notInclude(world.tmux(socket, "capture-pane", "-p", "-t", pane), "MARKER-TYPED")

        execFileSync("fsfreeze", ["-u", mnt])
        frozen = false
        // The stuck write lands after all; the record after it says its call did nothing.
        const late = await until(
          "the late intent record and its outcome",
          () => records(log).slice(2),
          (found) => found.length === 2
        )
        assert.deepStrictEqual(
          late.map((record) => [record.event, record.call, record.tool, record.outcome, record.error_tag]),
          [
            ["tool_call_intent", 2, "send_keys", undefined, undefined],
            ["tool_call_outcome", 2, "send_keys", "error", "AuditUnavailable"]
          ]
        )
        assert.isUndefined((await call(c, "list_sessions")).isError)
        assert.notInclude(world.tmux(socket, "capture-pane", "-p", "-t", pane), "MARKER-TYPED")
        await c.close()
      } finally {
        // Never leave a frozen file system behind: everything writing to it would hang.
        if (frozen) execFileSync("fsfreeze", ["-u", mnt])
        if (existsSync(mnt)) execFileSync("umount", ["-l", mnt])
      }
    },
    60_000
  )
})
