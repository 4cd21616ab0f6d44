/**
 * The control connection against a real tmux server on an isolated socket: arguments arrive byte for
 * byte however they are quoted, a list stops at its error as a spawned client's does, and every
 * command shape the grammar admits prints the same standard output, error and status both ways.
 */
import * as Effect from "effect/Effect"
import { execFileSync } from "node:child_process"
import { afterAll, assert, beforeAll, describe, it } from "vitest"
import { parseTag } from "../../src/domain/instance.ts"
import { thisTag } from "../../src/platform/thisInstance.ts"
import { type ControlConnection, openControl } from "../../src/platform/TmuxControl.ts"
import { buildArgv, execTmux } from "../../src/platform/TmuxExec.ts"
import { until } from "../support/poll.ts"
import { makeWorld } from "../support/tmux.ts"

const world = makeWorld("control")
const socket = world.socketPath("s")
const { env } = world
let connection: ControlConnection
let pane = ""
let pane2 = ""
let window = ""
let session = ""

beforeAll(async () => {
  // The first pane prints, as its own command, lines that read as guards, wide characters, a tab
  // and a long line, then stays; no shell is in the way.
  const text = "printf '%s\\n' '%end 1 2 1' '%begin 1 3 1' '漢字 wide' \"$(printf 'a\\tb')\" " +
    "\"$(printf 'x%.0s' $(seq 150))\"; exec sleep 1000"
  world.tmux("s", "new-session", "-d", "-s", "work", "-x", "100", "-y", "30", "-n", "main", text)
  world.tmux("s", "split-window", "-t", "work", "-h")
  world.tmux("s", "new-window", "-d", "-t", "work", "-n", "second")
  const ids = world.tmux("s", "display-message", "-p", "-t", "work:0.0", "#{pane_id} #{window_id} #{session_id}")
  ;[pane = "", window = "", session = ""] = ids.trim().split(" ")
  pane2 = world.tmux("s", "display-message", "-p", "-t", "work:0.1", "#{pane_id}").trim()
  connection = await openControl({
    bin: "tmux",
    socketFlags: ["-S", socket],
    socketPath: socket,
    // This process, as the server's own connection names it: its pane watches it by pid and start time.
    owner: { pid: process.pid, started: String(parseTag(thisTag)?.started ?? "") },
    env,
    session: "libtmux-mcp-connection-test",
    notice: () => undefined,
    closed: () => undefined
  })
  await until(
    "the printf's last line",
    () => world.tmux("s", "capture-pane", "-p", "-t", pane),
    (screen) => screen.includes("xxxxxxxxxx")
  )
})
afterAll(() => {
  connection?.close("the test ended")
  world.dispose()
})

/** What a spawned client answers: its standard output, or its error's message and status. */
const spawned = (commands: ReadonlyArray<ReadonlyArray<string>>) =>
  Effect.runPromise(
    execTmux("tmux", buildArgv(["-S", socket], commands), socket, { env }).pipe(
      Effect.map((stdout) => ({ stdout, error: undefined as string | undefined, status: 0 })),
      Effect.catchTag("TmuxCommandFailed", (failed) =>
        Effect.succeed({ stdout: "", error: failed.stderr as string | undefined, status: failed.exitCode }))
    )
  )

/** The same over the connection; a failed list's output is dropped as the spawned client's failure drops it. */
const controlled = async (commands: ReadonlyArray<ReadonlyArray<string>>) => {
  const answer = await connection.send(commands, 1 << 24)
  return answer.error === undefined
    ? { stdout: answer.stdout, error: undefined, status: 0 }
    : { stdout: "", error: answer.error, status: 1 }
}

describe("arguments over the connection", () => {
  /** Sets each text as a buffer over the connection and reads it back with a spawned client, byte for byte. */
  const roundTrip = async (texts: ReadonlyArray<string>) => {
    for (const text of texts) {
      const answer = await connection.send([["set-buffer", "-b", "fuzz", "--", text]], 1 << 20)
      assert.isUndefined(answer.error)
      const back = execFileSync("tmux", ["-S", socket, "save-buffer", "-b", "fuzz", "-"], { env, maxBuffer: 1 << 24 })
      assert.isTrue(back.equals(Buffer.from(text, "utf8")), `${JSON.stringify(text.slice(0, 80))} came back changed`)
    }
  }

  it("arrive byte for byte: every byte 0x01-0xFF as a character, the parser's own characters, and 1 MB", async () => {
    const every = Array.from({ length: 255 }, (_, i) => String.fromCharCode(i + 1)).join("")
    const alphabet = [...every, "漢", "\u{1F600}", "%if", "#{", "}"]
    // Random strings of the characters above, and not empty: an empty set-buffer, as an empty
    // load-buffer, leaves the buffer as it was.
    const random = Array.from({ length: 120 }, () =>
      Array.from(
        { length: 1 + Math.floor(Math.random() * 40) },
        () => alphabet[Math.floor(Math.random() * alphabet.length)]
      ).join(""))
    await roundTrip([
      every,
      "a\nb\rc",
      ";#{}$~\"'\\",
      "%if #{pane_id}\n%endif",
      "FOO=bar",
      "-t",
      "--",
      "~/x $HOME ${HOME} \\033",
      "漢字 ÿ é \u{1F600}",
      ";",
      "x".repeat(1_000_000),
      ...random
    ])
  })

  it("a list stops at its error as a spawned client's does: the command after it never runs", async () => {
    const list = (value: string) => [
      ["set-option", "-p", "-t", pane, "@before", value],
      ["kill-pane", "-t", "%999999"],
      ["set-option", "-p", "-t", pane, "@after", value]
    ]
    const control = await connection.send(list("c"), 1 << 20)
    assert.strictEqual(control.error, "can't find pane: %999999")
    const options = world.tmux("s", "show-options", "-p", "-t", pane)
    assert.include(options, "@before c")
    assert.notInclude(options, "@after")
  })
})

describe("parity with a spawned client", () => {
  const missing = ["%999999", "@999999", "$999999"]

  /** Every command shape of the grammar: reads on the same state, changes that leave it as it was, and failures. */
  const cases = (): ReadonlyArray<ReadonlyArray<ReadonlyArray<string>>> => [
    [["list-sessions", "-F", "#{session_id}\u001f#{session_name}\u001f#{session_windows}\u001e"]],
    [["list-windows", "-a", "-F", "#{window_id} #{window_name} #{window_layout}"]],
    [["list-windows", "-t", session, "-F", "#{window_index}"]],
    [["list-panes", "-a", "-F", "#{pane_id} #{pane_current_command} #{pane_width}"]],
    [["list-panes", "-s", "-t", session, "-F", "#{pane_id}"]],
    [["list-panes", "-t", window, "-F", "#{pane_id}"]],
    [["display-message", "-p", "-t", pane, "#{pane_id}\u001f#{cursor_x},#{cursor_y}\u001f#{history_size}"]],
    [["capture-pane", "-p", "-t", pane]],
    [["capture-pane", "-p", "-J", "-t", pane, "-S", "-", "-E", "-"]],
    [["capture-pane", "-p", "-e", "-N", "-t", pane, "-S", "0", "-E", "5"]],
    [["capture-pane", "-p", "-a", "-t", pane]],
    [["display-message", "-p", "-t", pane, "#{pane_id}"], ["capture-pane", "-p", "-t", pane], [
      "display-message",
      "-p",
      "-t",
      pane,
      "\u001f\u001e\u001f"
    ], ["capture-pane", "-p", "-t", pane2]],
    [["show-options", "-g"]],
    [["show-options", "-v", "-p", "-t", pane, "@before"]],
    [["show-options", "-w", "-t", window]],
    [["show-options", "-s"]],
    [["show-options", "-t", session, "no-such-option"]],
    [["show-environment", "-g", "PATH"]],
    [["show-environment", "-g", "NO_SUCH_VARIABLE_HERE"]],
    [["show-hooks", "-g"]],
    [["rename-window", "-t", window, "main"]],
    [["rename-session", "-t", session, "work"]],
    [["select-window", "-t", window]],
    [["select-pane", "-t", pane]],
    [["select-pane", "-t", pane, "-T", "title"]],
    [["select-layout", "-t", window, "even-horizontal"]],
    [["resize-pane", "-t", pane, "-x", "50"]],
    [["resize-window", "-t", window, "-x", "100", "-y", "30"]],
    [["copy-mode", "-q", "-t", pane]],
    [["send-keys", "-X", "-t", pane, "cancel"]],
    [["set-option", "-p", "-t", pane, "@parity", "x"]],
    [["set-option", "-w", "-t", window, "synchronize-panes", "off"]],
    [["set-option", "-pu", "-t", pane, "@never-set"]],
    [["set-option", "-p", "-o", "-t", pane, "@parity", "y"]],
    [["clear-history", "-t", pane2]],
    [["delete-buffer", "-b", "libtmux-mcp-paste-none"]],
    [["paste-buffer", "-b", "libtmux-mcp-paste-none", "-t", pane]],
    [["wait-for", "-S", "parity-channel"]],
    [["next-window", "-t", session], ["previous-window", "-t", session]],
    [["last-window", "-t", session]],
    [["swap-pane", "-s", pane, "-t", "%999999"]],
    [["move-window", "-s", window, "-t", "$999999:"]],
    [["display-message", "-p", "-t", pane, "#{pane_id}"], ["kill-pane", "-t", "%999999"]],
    ...missing.flatMap((target) => [
      [["kill-session", "-t", target]],
      [["kill-window", "-t", target]],
      [["kill-pane", "-t", target]],
      [["capture-pane", "-p", "-t", target]],
      [["display-message", "-p", "-t", target, "#{pane_id}"]],
      [["send-keys", "-t", target, "-l", "x"]],
      [["list-panes", "-t", target, "-F", "#{pane_id}"]],
      [["set-option", "-p", "-t", target, "@x", "1"]]
    ]),
    [["unknown-command-here"]],
    [["display-message", "-p", "-t", pane, "#{pane_id}", "extra", "arguments", "here"]]
  ]

  it("prints the same output, error and status both ways for every shape", async () => {
    // Once each way first, so that a change both leave behind (a title, a layout) is in place for the comparison.
    for (const commands of cases()) {
      await spawned(commands)
      await controlled(commands)
    }
    for (const commands of cases()) {
      const spawnedAnswer = await spawned(commands)
      const controlAnswer = await controlled(commands)
      assert.deepStrictEqual(controlAnswer, spawnedAnswer, JSON.stringify(commands))
    }
  })

  it("answers 8 callers at once, each its own", async () => {
    const answers = await Promise.all(
      Array.from({ length: 8 }, (_, i) => connection.send([["display-message", "-p", "-t", pane, `caller ${i}`]], 1024))
    )
    assert.deepStrictEqual(answers.map((answer) => answer.stdout), Array.from({ length: 8 }, (_, i) => `caller ${i}\n`))
  })
})
