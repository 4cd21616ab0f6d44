/**
 * Issue 26: a wait looks at its pane only when something may have changed there (the tmux server
 * read output, or the pane's process changed), so an idle wait runs next to no tmux clients, and
 * every way the pane can change under a wait still ends it as before.
 */
import type { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js"
import { readdirSync, readFileSync } from "node:fs"
import { assert, describe, it } from "vitest"
import { harness } from "../support/harness.ts"
import { call, type Connected, structured, textOf } from "../support/mcp.ts"
import { holdsFor, stillPending, until } from "../support/poll.ts"
import { shellEnv } from "../support/shells.ts"
import { loggingTmux } from "../support/tmux.ts"

// In process, but for the test that looks at the server process's children.
const h = harness("idle-wait", { inProcess: true })
const bin = harness("idle-wait")
// Each test has its own tmux server and MCP server, and most of its time is windows in which nothing may
// happen: they run side by side.
const errorTag = (result: Awaited<ReturnType<typeof call>>) => result._meta?.["com.git-pull.libtmux-mcp/error"]

const open = async (env: Record<string, string> = {}, on = h) => {
  const world = on.world()
  const c = await on.connect(world, { ...shellEnv(world, "/bin/bash"), ...env })
  const session = structured(await call(c, "create_session", { session_name: "work", width: 100, height: 30 }))
  const pane = session.pane_id as string
  structured(await call(c, "run_shell_command", { pane_id: pane, command: "true" }))
  const type = (line: string) => world.tmux("libtmux-mcp", "send-keys", "-t", pane, line, "Enter")
  return { world, c, pane, type }
}

/** The server's live child processes (its tmux clients while they run). */
const children = (c: Connected) => {
  const pid = (c.client.transport as StdioClientTransport).pid!
  return readdirSync("/proc").filter((name) => /^\d+$/u.test(name)).filter((name) => {
    try {
      return readFileSync(`/proc/${name}/stat`, "utf8").split(") ")[1]!.split(" ")[1] === String(pid)
    } catch {
      return false
    }
  })
}

/** A server whose tmux binary logs each invocation, and the count of invocations so far. */
const openCounting = async (on = h) => {
  const world = on.world()
  const { wrapper, invocations } = loggingTmux(world)
  // Forked clients are what is counted: the control connection carries its commands as lines.
  const opened = await open({ LIBTMUX_TMUX_BIN: wrapper, LIBTMUX_TRANSPORT: "spawn" }, on)
  // A second after it starts, the server sweeps what dead servers left (src/platform/Leftovers.ts):
  // counts start once its pane pass, the sweep's last tmux client here, has run. On a loaded machine
  // the sweep may come before the session: then its look at the panes found none and was its last.
  const swept = (text: string) => {
    const panesLook = text.indexOf("list-panes -a -F #{pane_id}")
    return text.includes("lmcp-sweep-") || (panesLook !== -1 && panesLook < text.indexOf(" new-session "))
  }
  await until("the startup sweep's pane pass", () => invocations().join("\n"), swept)
  return { ...opened, invocations: () => invocations().length }
}

describe.concurrent("wait_for_text on a quiet pane", () => {
  it("runs no tmux client between its first looks and the refresh, and still answers the text that comes", async () => {
    const { c, pane, type, invocations } = await openCounting()
    const before = invocations()
    const waiting = call(c, "wait_for_text", { pane_id: pane, patterns: ["quiet-over"], timeout: 30 })
    // The call's read of the pane, the look that takes the rows above it, and the loop's first look:
    // one tmux client each; then the looks space out (a poll every 20 ms would be 150 clients in 3 s).
    await until("the wait's first three looks", invocations, (n) => n >= before + 3)
    // Its first looks space out (20, 40, 80, 160 ms) while nothing comes; the wait does not answer.
    await holdsFor(300, "the wait does not answer on the quiet pane", stillPending(waiting))
    const settled = invocations()
    await holdsFor(
      3_000,
      "the waiting server starts at most six tmux clients in 3 s on the quiet pane",
      () => invocations() <= settled + 6
    )
    type("printf 'quiet-%s\\n' over")
    assert.strictEqual(structured(await waiting).matched_line, "quiet-over")
  })

  it("sees text written a millisecond after the call began (from a cursor taken before)", async () => {
    const { c, pane, type } = await open()
    const { cursor } = structured(await call(c, "capture_since", { pane_id: pane }))
    const waiting = call(c, "wait_for_text", { pane_id: pane, patterns: ["early-bird"], timeout: 20, since: cursor })
    // Typed as the call goes out: before or after the wait's first look, the cursor was taken before.
    type("printf 'early-%s\\n' bird")
    assert.deepInclude(structured(await waiting), { outcome: "matched", matched_line: "early-bird" })
  })

  it("sees text written together with a clear of the screen", async () => {
    const { world, c, pane, type } = await open()
    for (let i = 0; i < 40; i++) type(`echo filler-${i}`)
    await until(
      "the fillers to be shown",
      () => world.tmux("libtmux-mcp", "capture-pane", "-p", "-t", pane),
      (text) => /^filler-39$/mu.test(text)
    )
    const waiting = call(c, "wait_for_text", { pane_id: pane, patterns: ["after-clear"], timeout: 20 })
    // The pane stays quiet for a while during the wait: the pacer settles before the change.
    await holdsFor(1_500, "the wait does not answer while the pane is quiet", stillPending(waiting))
    type("clear; printf 'after-%s\\n' clear")
    assert.deepInclude(structured(await waiting), { outcome: "matched", matched_line: "after-clear" })
  })

  it("ends with the pane gone when the pane is killed during the wait", async () => {
    const { world, c, pane } = await open()
    const waiting = call(c, "wait_for_text", { pane_id: pane, patterns: ["never"], timeout: 20 })
    // The pane stays quiet for a while during the wait: the pacer settles before the change.
    await holdsFor(1_500, "the wait does not answer while the pane is quiet", stillPending(waiting))
    world.tmux("libtmux-mcp", "split-window", "-t", pane)
    world.tmux("libtmux-mcp", "kill-pane", "-t", pane)
    const result = await waiting
    assert.isTrue(result.isError, textOf(result))
    assert.include(["PaneGone", "PaneNotFound"], errorTag(result))
    assert.include(textOf(result), pane)
  })

  it("ends with the server gone when the tmux server is killed during the wait", async () => {
    const { world, c, pane } = await open()
    const waiting = call(c, "wait_for_text", { pane_id: pane, patterns: ["never"], timeout: 20 })
    await holdsFor(1_500, "the wait does not answer while the pane is quiet", stillPending(waiting))
    world.tmux("libtmux-mcp", "kill-server")
    const result = await waiting
    assert.isTrue(result.isError, textOf(result))
    assert.include(["ServerNotRunning", "PaneNotFound", "PaneGone"], errorTag(result))
  })

  it("answers two waits on one pane, each with its own pattern", async () => {
    const { c, pane, type } = await open()
    const first = call(c, "wait_for_text", { pane_id: pane, patterns: ["first-one"], timeout: 20 })
    const second = call(c, "wait_for_text", { pane_id: pane, patterns: ["second-one"], timeout: 20 })
    const [stillFirst, stillSecond] = [stillPending(first), stillPending(second)]
    await holdsFor(1_500, "neither wait answers while the pane is quiet", () => stillFirst() && stillSecond())
    type("printf 'first-%s\\n' one")
    assert.strictEqual(structured(await first).matched_line, "first-one")
    type("printf 'second-%s\\n' one")
    assert.strictEqual(structured(await second).matched_line, "second-one")
  })

  it("leaves nothing behind when cancelled, and the next wait works", async () => {
    const { c, pane, type, invocations } = await openCounting(bin)
    const controller = new AbortController()
    const cancelled = c.client.callTool(
      { name: "wait_for_text", arguments: { pane_id: pane, patterns: ["never"], timeout: 30 } },
      undefined,
      { signal: controller.signal }
    ).then(() => "answered", () => "cancelled")
    await holdsFor(1_500, "the wait does not answer while the pane is quiet", stillPending(cancelled))
    controller.abort()
    assert.strictEqual(await cancelled, "cancelled")
    await until("the cancelled wait's tmux clients to end", () => children(c), (pids) => pids.length === 0)
    const before = invocations()
    const waiting = call(c, "wait_for_text", { pane_id: pane, patterns: ["next-one"], timeout: 20 })
    // Output written before the wait began never counts: once its second look has started, its first
    // (the read that everything after counts as new against) is done.
    await until("the wait's second look", invocations, (n) => n >= before + 2)
    type("printf 'next-%s\\n' one")
    assert.strictEqual(structured(await waiting).matched_line, "next-one")
  })
})

describe.concurrent("capture_since with a cursor", () => {
  it("answers in one tmux invocation when the pane's history did not move, and still sees what came", async () => {
    const { world, c, pane, type, invocations } = await openCounting()
    let { cursor } = structured(await call(c, "capture_since", { pane_id: pane }))
    const before = invocations()
    const quiet = structured(await call(c, "capture_since", { pane_id: pane, cursor }))
    assert.strictEqual(invocations() - before, 1)
    assert.strictEqual(quiet.output, "")
    cursor = quiet.cursor
    type("printf 'since-%s\\n' one")
    await until(
      "since-one on the screen",
      () => world.tmux("libtmux-mcp", "capture-pane", "-p", "-t", pane),
      (text) => /^since-one$/mu.test(text)
    )
    const grown = structured(await call(c, "capture_since", { pane_id: pane, cursor }))
    assert.include(grown.output, "since-one")
  })
})
