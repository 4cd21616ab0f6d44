/**
 * Issue 23, item 1: on a disk that fills up, the audit file keeps whole lines only. A record the
 * disk cannot take whole is absent (its call refused, or its outcome queued), never a fragment a
 * later record is appended to. Needs a small filesystem: a 64 KiB tmpfs, which only root can mount.
 */
import { execFileSync } from "node:child_process"
import { closeSync, mkdirSync, mkdtempSync, openSync, readFileSync, rmdirSync, rmSync, writeSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { assert, describe, it } from "vitest"
import { harness } from "../support/harness.ts"
import { call, connect } from "../support/mcp.ts"

const h = harness("audit-full")

const mountSmall = (dir: string): boolean => {
  try {
    execFileSync("mount", ["-t", "tmpfs", "-o", "size=64k,mode=0700", "tmpfs", dir], { stdio: "ignore" })
    return true
  } catch {
    return false
  }
}

// Tried once at load, so the test says up front why it does not run.
const canMount = (() => {
  const probe = mkdtempSync(join(tmpdir(), "libtmux-mcp-mount-"))
  const mounted = mountSmall(probe)
  if (mounted) execFileSync("umount", [probe])
  rmdirSync(probe)
  return mounted
})()

/** Fills the filesystem of `path` with a file until it refuses more. */
const fill = (path: string): void => {
  const fd = openSync(path, "w")
  try {
    for (let i = 0; i < 1024; i++) writeSync(fd, Buffer.alloc(512, 120))
  } catch {
    // ENOSPC: full.
  } finally {
    closeSync(fd)
  }
}

describe("the audit file on a full disk", () => {
  const title = "holds whole JSON lines only, before and after the disk fills, and records again once it has room"
  it.skipIf(!canMount)(
    canMount ? title : `${title} (skipped: cannot mount a 64 KiB tmpfs; it needs root, as in CI)`,
    async () => {
      const world = h.world()
      const disk = join(world.dir, "disk")
      mkdirSync(disk)
      assert.isTrue(mountSmall(disk))
      try {
        const log = join(disk, "audit.jsonl")
        const c = await connect(world, { LIBTMUX_AUDIT_LOG: log })
        try {
          await call(c, "list_sessions")
          fill(join(disk, "filler"))
          let refused = 0
          for (let i = 0; i < 40 && refused < 3; i++) {
            const result = await call(c, "list_sessions", { session_name: `x${i}` }).catch(() => undefined)
            if (result?.isError === true && JSON.stringify(result).includes("AuditUnavailable")) refused += 1
          }
          assert.isAbove(refused, 0, "the disk never filled")
          rmSync(join(disk, "filler"))
          await call(c, "list_sessions")
          const text = readFileSync(log, "utf8")
          assert.isTrue(text.endsWith("\n"))
          const records = text.slice(0, -1).split("\n").map((line) => {
            try {
              return JSON.parse(line) as { event: string }
            } catch {
              return assert.fail(`a torn line in the audit file: ${JSON.stringify(line)}`)
            }
          })
          assert.strictEqual(records.at(-1)?.event, "tool_call_outcome")
        } finally {
          await c.close()
        }
      } finally {
        execFileSync("umount", [disk])
      }
    }
  )
})
