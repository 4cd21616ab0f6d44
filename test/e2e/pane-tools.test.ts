/**
 * The pane tools end to end against real tmux panes: spawning windows and panes, input (with the
 * target set under synchronize-panes), reading (capture, snapshot, capture_since), searching and
 * waiting, and channels.
 */
import { mkdirSync, readdirSync } from "node:fs"
import { join } from "node:path"
import { assert, describe, it } from "vitest"
import { sharedServer } from "../support/harness.ts"
import { absent, call, type Connected, structured, textOf } from "../support/mcp.ts"
import { until, waiterOf } from "../support/poll.ts"
import { shellEnv } from "../support/shells.ts"
import { afterFormatJobs, type TmuxWorld } from "../support/tmux.ts"

// These tests are about tmux panes: they share one server process, each with a fresh tmux server.
const shared = sharedServer("panes", (world) => shellEnv(world, "/bin/bash"))
const screen = (world: TmuxWorld, pane: string) => world.tmux("libtmux-mcp", "capture-pane", "-p", "-t", pane)

const open = async () => {
  const { world, c } = await shared.freshTmux()
  const session = structured(await call(c, "create_session", { session_name: "work", width: 100, height: 30 }))
  return { world, c, session, pane: session.pane_id as string }
}

const run = (c: Connected, pane: string, command: string) =>
  call(c, "run_shell_command", { pane_id: pane, command }).then(structured)

describe("create_window and split_window", () => {
  it(
    "spawn windows and panes with the configured shell, literal " +
      "names and a start directory that never reaches formats",
    async () => {
      const { world, c, session } = await open()
      const dir = join(world.dir, "#(touch marker-split)")
      mkdirSync(dir)
      const window = structured(
        await call(c, "create_window", {
          session_id: session.session_id,
          window_name: "#(touch marker-win)#{pane_id}",
          start_directory: dir
        })
      )
      assert.strictEqual(
        world.tmux("libtmux-mcp", "display", "-p", "-t", window.window_id, "#{window_name}").trim(),
        "#(touch marker-win)#{pane_id}"
      )
      const split = structured(
        await call(c, "split_window", {
          pane_id: window.pane_id,
          direction: "right",
          size_percent: 25,
          start_directory: dir
        })
      )
      assert.strictEqual(split.window_id, window.window_id)
      const panes = structured(await call(c, "list_panes", { window_id: window.window_id })).panes
      assert.strictEqual(panes.length, 2)
      const right = panes.find((pane: { pane_id: string }) => pane.pane_id === split.pane_id)
      assert.isAbove(right.pane_left, 0)
      assert.strictEqual((await run(c, split.pane_id, "pwd")).output, dir)
      afterFormatJobs(world)
      assert.deepStrictEqual(readdirSync(world.dir).filter((name) => name.startsWith("marker")), [])
      assert.deepStrictEqual(readdirSync(dir), [])
    }
  )

  it("validates direction and size, and refuses both sizes at once", async () => {
    const { c, pane } = await open()
    for (
      const args of [{ direction: "diagonal" }, { size_percent: 0 }, { size_percent: 100 }, { size_cells: 0 }, {
        size_percent: 10,
        size_cells: 5
      }]
    ) {
      const result = await call(c, "split_window", { pane_id: pane, ...args })
      assert.isTrue(result.isError, JSON.stringify(args))
    }
    assert.strictEqual(structured(await call(c, "list_panes", { session_name: "work" })).panes.length, 1)
  })
})

describe("input", () => {
  it("send_keys types text and keys, and reports every pane reached under synchronize-panes", async () => {
    const { world, c, pane } = await open()
    const other = structured(await call(c, "split_window", { pane_id: pane })).pane_id
    await run(c, pane, "true")
    const single = structured(await call(c, "send_keys", { pane_id: pane, keys: "echo typed-once" }))
    assert.deepStrictEqual(single.targets, [pane])
    world.tmux("libtmux-mcp", "set-option", "-w", "-t", pane, "synchronize-panes", "on")
    const synced = structured(await call(c, "send_keys", { pane_id: pane, keys: "echo both" }))
    assert.deepStrictEqual([...synced.targets].sort(), [pane, other].sort())
    assert.isTrue(synced.synchronized)
    await until(
      "the synchronized input's output in the other pane",
      () => screen(world, other),
      (text) => /^both$/mu.test(text)
    )
    world.tmux("libtmux-mcp", "set-option", "-w", "-t", pane, "synchronize-panes", "off")
    structured(await call(c, "send_keys", { pane_id: pane, keys: "sleep 30" }))
    await until(
      "sleep in the foreground",
      () => world.tmux("libtmux-mcp", "display", "-p", "-t", pane, "#{pane_current_command}").trim(),
      (command) => command === "sleep"
    )
    structured(await call(c, "send_keys", { pane_id: pane, keys: "C-c", enter: false }))
    assert.strictEqual((await run(c, pane, "echo back")).output, "back")
  })

  it("send_keys_batch sends in order, and a missing pane sends nothing", async () => {
    const { world, c, pane } = await open()
    await run(c, pane, "true")
    const missing = await call(c, "send_keys_batch", {
      operations: [{ pane_id: pane, keys: "echo should-not-appear" }, { pane_id: "%99", keys: "x" }]
    })
    assert.isTrue(missing.isError)
    assert.strictEqual(missing._meta?.["com.git-pull.libtmux-mcp/error"], "PaneNotFound")
    const result = structured(
      await call(c, "send_keys_batch", {
        operations: [{ pane_id: pane, keys: "echo first", enter: false }, { pane_id: pane, keys: "Enter" }, {
          pane_id: pane,
          keys: "echo second"
        }]
      })
    )
    assert.deepStrictEqual(result.targets, [pane])
    const shown = await until("the output of echo second", () => screen(world, pane), (text) => /^second$/mu.test(text))
    assert.notInclude(shown, "should-not-appear")
    assert.isBelow(shown.indexOf("first\n"), shown.indexOf("second\n"))
    const empty = await call(c, "send_keys_batch", { operations: [] })
    assert.isTrue(empty.isError)
  })

  it("paste_text pastes through a private buffer that is gone afterwards, on success and on failure", async () => {
    const { world, c, pane } = await open()
    await run(c, pane, "true")
    structured(await call(c, "paste_text", { pane_id: pane, text: "echo pasted-line" }))
    structured(await call(c, "send_keys", { pane_id: pane, keys: "Enter" }))
    await until("the pasted line's output", () => screen(world, pane), (text) => /^pasted-line$/mu.test(text))
    const failed = await call(c, "paste_text", { pane_id: "%42", text: "nowhere" })
    assert.strictEqual(failed._meta?.["com.git-pull.libtmux-mcp/error"], "PaneNotFound")
    assert.strictEqual(world.tmux("libtmux-mcp", "list-buffers"), "")
  })
})

describe("reading", () => {
  it("capture_pane reads the screen or a history range, bounded with counts, and validates its numbers", async () => {
    const { c, pane } = await open()
    await run(c, pane, "seq 1 100")
    const visible = structured(await call(c, "capture_pane", { pane_id: pane }))
    assert.include(visible.content, "100")
    const history = structured(await call(c, "capture_pane", { pane_id: pane, start: -60, end: -50 }))
    assert.strictEqual(history.lines, 11)
    const tail = structured(await call(c, "capture_pane", { pane_id: pane, max_lines: 2 }))
    assert.strictEqual(tail.lines, 2)
    assert.isAbove(tail.truncated_lines, 0)
    for (const args of [{ max_lines: 0 }, { max_lines: -1 }, { start: 5, end: 1 }, { max_bytes: 0 }]) {
      assert.isTrue((await call(c, "capture_pane", { pane_id: pane, ...args })).isError, JSON.stringify(args))
    }
    await run(c, pane, "printf '\\033[31mred\\033[0m\\n'")
    assert.include(structured(await call(c, "capture_pane", { pane_id: pane, escapes: true })).content, "\u001b[31mred")
    assert.notInclude(structured(await call(c, "capture_pane", { pane_id: pane })).content, "\u001b[")
  })

  it("snapshot_pane reports screen, cursor, copy mode and the alternate screen together", async () => {
    const { world, c, pane } = await open()
    await run(c, pane, "echo snap")
    const plain = structured(await call(c, "snapshot_pane", { pane_id: pane }))
    assert.include(plain.content, "snap")
    assert.deepInclude(plain, { pane_in_mode: false, alternate_on: false, scroll_position: null, pane_id: pane })
    world.tmux("libtmux-mcp", "copy-mode", "-t", pane)
    world.tmux("libtmux-mcp", "send-keys", "-t", pane, "-X", "scroll-up")
    const copy = structured(await call(c, "snapshot_pane", { pane_id: pane }))
    assert.deepInclude(copy, { pane_in_mode: true, pane_mode: "copy-mode" })
    assert.isNumber(copy.scroll_position)
    world.tmux("libtmux-mcp", "send-keys", "-t", pane, "-X", "cancel")
    world.tmux("libtmux-mcp", "send-keys", "-t", pane, "less /etc/passwd", "Enter")
    await until(
      "less on the alternate screen, as snapshot_pane reports it",
      async () => structured(await call(c, "snapshot_pane", { pane_id: pane })).alternate_on,
      (on) => on === true
    )
    world.tmux("libtmux-mcp", "send-keys", "-t", pane, "q")
  })

  it("capture_since returns only new rows, reports cleared history, refuses forged or foreign cursors", async () => {
    const { world, c, pane } = await open()
    await run(c, pane, "echo before")
    const first = structured(await call(c, "capture_since", { pane_id: pane }))
    assert.include(first.output, "before")
    await run(c, pane, "seq 1 80")
    const second = structured(await call(c, "capture_since", { pane_id: pane, cursor: first.cursor }))
    const lines = (second.output as string).split("\n")
    assert.notInclude(lines, "before")
    for (const n of ["1", "40", "80"]) assert.include(lines, n)
    absent(second, "lines_missed")
    const idle = structured(await call(c, "capture_since", { pane_id: pane, cursor: second.cursor }))
    assert.strictEqual(idle.output, "")
    world.tmux("libtmux-mcp", "clear-history", "-t", pane)
    const cleared = structured(await call(c, "capture_since", { pane_id: pane, cursor: idle.cursor }))
    assert.isTrue(cleared.lines_missed)
    const forged = await call(c, "capture_since", { pane_id: pane, cursor: `${cleared.cursor.slice(0, -2)}AA` })
    assert.strictEqual(forged._meta?.["com.git-pull.libtmux-mcp/error"], "CursorInvalid")
    const other = structured(await call(c, "split_window", { pane_id: pane })).pane_id
    const foreign = await call(c, "capture_since", { pane_id: other, cursor: cleared.cursor })
    assert.include(textOf(foreign), `issued for pane ${pane}`)
    world.tmux("libtmux-mcp", "respawn-pane", "-k", "-t", pane)
    const respawned = await call(c, "capture_since", { pane_id: pane, cursor: cleared.cursor })
    assert.strictEqual(respawned._meta?.["com.git-pull.libtmux-mcp/error"], "PaneGone")
  })
})

describe("search and wait", () => {
  it("search_panes matches literals literally and bounds a catastrophic regex to linear time", async () => {
    const { c, pane } = await open()
    await run(c, pane, "echo 'a[b]*c\\d' plain; printf 'a%.0s' $(seq 1 5000); echo '!'")
    const literal = structured(await call(c, "search_panes", { pattern: "a[b]*c\\d", history_lines: 200 }))
    assert.strictEqual(literal.panes_matched, 1)
    assert.isTrue(literal.matches[0].lines.some((line: string) => line.includes("a[b]*c\\d plain")))
    const none = structured(await call(c, "search_panes", { pattern: "abc" }))
    assert.strictEqual(none.panes_matched, 0)
    // Linear matching answers within a bound that backtracking over 5,000 characters
    // would exceed by far (bench/regex-stall.ts measures it).
    const catastrophic = structured(
      await call(c, "search_panes", { pattern: "(a+)+$", regex: true }, { timeout: 10_000 })
    )
    assert.isNumber(catastrophic.panes_searched)
    const bad = await call(c, "search_panes", { pattern: "(?=x)", regex: true })
    assert.strictEqual(bad._meta?.["com.git-pull.libtmux-mcp/error"], "PatternInvalid")
    const long = await call(c, "search_panes", { pattern: "x".repeat(513) })
    assert.isTrue(long.isError)
  })

  it("search_panes caps matched lines and panes and says so", async () => {
    const { c, pane } = await open()
    await run(c, pane, "for i in 1 2 3 4 5; do echo hit-$i; done")
    const capped = structured(await call(c, "search_panes", { pattern: "hit-", max_lines_per_pane: 2 }))
    assert.deepStrictEqual(capped.matches[0].lines, ["hit-4", "hit-5"])
    assert.isAbove(capped.matches[0].truncated_lines, 0)
    await call(c, "split_window", { pane_id: pane })
    const few = structured(await call(c, "search_panes", { pattern: "$", max_panes: 1 }))
    assert.strictEqual(few.matches.length, 1)
    // Absent when nothing was left out.
    assert.strictEqual(few.truncated_panes ?? 0, few.panes_matched - 1)
  })

  it("wait_for_text waits for new output, ignores what was already there, and times out cleanly", async () => {
    const { world, c, pane } = await open()
    await run(c, pane, "echo already-here")
    const stale = structured(
      await call(c, "wait_for_text", { pane_id: pane, patterns: ["already-here"], timeout: 0.5 })
    )
    assert.strictEqual(stale.outcome, "timeout")
    // The race-free way: a cursor taken before typing, so the output counts however late the wait starts.
    const { cursor } = structured(await call(c, "capture_since", { pane_id: pane }))
    const waiting = call(c, "wait_for_text", {
      pane_id: pane,
      patterns: ["nope", "build (ok|done)"],
      regex: true,
      timeout: 10,
      since: cursor
    })
    // The typed line itself must not match: only the command's output does.
    world.tmux("libtmux-mcp", "send-keys", "-t", pane, "echo build $(echo done)", "Enter")
    const matched = structured(await waiting)
    assert.deepInclude(matched, { outcome: "matched", matched_index: 1, matched_line: "build done" })
    assert.isAtMost(matched.elapsed_seconds, 10, "matched within its timeout")
    const dead = await call(c, "wait_for_text", { pane_id: "%77", timeout: 1 })
    assert.strictEqual(dead._meta?.["com.git-pull.libtmux-mcp/error"], "PaneNotFound")
  })

  it("wait_for_text matches a line the pane wrapped, across the wrap", async () => {
    const { world, c } = await shared.freshTmux()
    const pane = structured(await call(c, "create_session", { session_name: "narrow", width: 40, height: 10 }))
      .pane_id as string
    const { cursor } = structured(await call(c, "capture_since", { pane_id: pane }))
    const waiting = call(c, "wait_for_text", { pane_id: pane, patterns: ["GET / HTTP"], timeout: 5, since: cursor })
    // 34 x's and "GET / " fill the 40-column row; "HTTP/1.1" goes on the next. The typed line
    // never holds the pattern itself.
    world.tmux(
      "libtmux-mcp",
      "send-keys",
      "-t",
      pane,
      `printf '%s%s\\n' "$(printf 'x%.0s' {1..34})GET / " HTTP/1.1`,
      "Enter"
    )
    const matched = structured(await waiting)
    assert.deepInclude(matched, { outcome: "matched", matched_index: 0 })
    assert.strictEqual(matched.matched_line, `${"x".repeat(34)}GET / HTTP/1.1`)
    assert.include(matched.new_lines, matched.matched_line)
  })

  it("find_pane_by_position finds each corner of a two-by-two grid", async () => {
    const { c, session, pane } = await open()
    const right = structured(await call(c, "split_window", { pane_id: pane, direction: "right" })).pane_id
    const bottomLeft = structured(await call(c, "split_window", { pane_id: pane, direction: "below" })).pane_id
    const bottomRight = structured(await call(c, "split_window", { pane_id: right, direction: "below" })).pane_id
    const at = async (position: string) =>
      structured(await call(c, "find_pane_by_position", { window_id: session.window_id, position })).pane_id
    assert.deepStrictEqual(
      [await at("top-left"), await at("top-right"), await at("bottom-left"), await at("bottom-right")],
      [pane, right, bottomLeft, bottomRight]
    )
  })
})

describe("channels", () => {
  it("wait_for_channel returns when signalled, consumes a latched signal, and times out with an outcome", async () => {
    const { c } = await open()
    const waiting = call(c, "wait_for_channel", { channel: "build.done", timeout: 10 })
    await waiterOf(c.pid?.(), "build.done")
    structured(await call(c, "signal_channel", { channel: "build.done" }))
    assert.strictEqual(structured(await waiting).outcome, "signalled")
    structured(await call(c, "signal_channel", { channel: "early" }))
    assert.strictEqual(
      structured(await call(c, "wait_for_channel", { channel: "early", timeout: 2 })).outcome,
      "signalled"
    )
    assert.strictEqual(
      structured(await call(c, "wait_for_channel", { channel: "early", timeout: 0.3 })).outcome,
      "timeout"
    )
  })

  it("validates channel names and reserves the prefix of run_shell_command's channels", async () => {
    const { c } = await open()
    const form = "Expected a string matching the RegExp ^[A-Za-z0-9_][A-Za-z0-9_.:-]{0,127}$"
    const reserved = "names starting with lmcp_ are reserved for run_shell_command"
    const cases = [["", form], ["-x", form], ["a b", form], ["semi;", form], ["lmcp_abc", reserved], [
      "x".repeat(129),
      form
    ]]
    for (const [channel, why] of cases) {
      const refused = await call(c, "signal_channel", { channel })
      assert.strictEqual(refused._meta?.["com.git-pull.libtmux-mcp/error"], "InputInvalid", channel)
      assert.strictEqual(
        textOf(refused),
        `invalid arguments for signal_channel: ${why}\n  at ["channel"]\nvalid properties: channel`,
        channel
      )
    }
  })
})
