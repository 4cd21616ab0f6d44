/**
 * Finding the panes that contain a process, over a made-up /proc: the walk up the parents, the
 * controlling terminal, and the live service that reads the panes once, only when a pane could
 * contain this process, and keeps the answer.
 */
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import { assert, describe, it } from "vitest"
import {
  ancestry,
  controllingTerminal,
  panesContaining,
  parseStat,
  type ProcessReader
} from "../../src/domain/processTree.ts"
import * as ServerPaneLive from "../../src/layers/ServerPaneLive.ts"
import { ServerNotRunning, TmuxTimedOut } from "../../src/services/errors.ts"
import { ServerPane } from "../../src/services/ServerPane.ts"
import { TmuxObserve } from "../../src/services/Tmux.ts"
import { FS, RS } from "../../src/services/TmuxReads.ts"
import { scriptedObserve } from "../support/scriptedTmux.ts"

/** A /proc of `pid -> [parent, tty_nr, command name]`, and terminals by path. */
const fakeProc = (
  processes: Readonly<Record<number, readonly [number, number, string?]>>,
  terminals: Readonly<Record<string, number>> = {}
): ProcessReader & { readonly reads: Array<number> } => {
  const reads: Array<number> = []
  return {
    reads,
    stat: (pid) => {
      reads.push(pid)
      const entry = processes[pid]
      return entry === undefined
        ? undefined
        : `${pid} (${entry[2] ?? "node"}) S ${entry[0]} ${pid} ${pid} ${entry[1]} -1 0`
    },
    device: (path) => terminals[path]
  }
}

// /dev/pts/3 is 136:3, encoded as the kernel encodes both tty_nr and st_rdev.
const pts3 = (136 << 8) | 3
const pts4 = (136 << 8) | 4

describe("reading /proc/<pid>/stat", () => {
  it("takes the parent and the terminal after the command name, whatever that name holds", () => {
    assert.deepStrictEqual(parseStat(`42 (node) S 7 42 42 ${pts3} 42 0 0`), { ppid: 7, ttyNr: pts3 })
    assert.deepStrictEqual(parseStat("42 (a (b) c) d) S 7 42 42 0 -1"), { ppid: 7, ttyNr: 0 })
    assert.strictEqual(parseStat("not a stat line"), undefined)
    assert.strictEqual(parseStat("42 (node) S x"), undefined)
  })
})

describe("the walk up the parents", () => {
  it("lists the process and its ancestors, nearest first, and stops before init", () => {
    const proc = fakeProc({ 900: [800, 0], 800: [700, 0], 700: [1, 0] })
    assert.deepStrictEqual(ancestry(900, proc), [900, 800, 700])
  })

  it("stops where a parent cannot be read (gone, or no /proc)", () => {
    assert.deepStrictEqual(ancestry(900, fakeProc({ 900: [800, 0] })), [900, 800])
    assert.deepStrictEqual(ancestry(900, fakeProc({})), [900])
  })

  it("stops on a loop that a malformed reader would make", () => {
    assert.deepStrictEqual(ancestry(900, fakeProc({ 900: [800, 0], 800: [900, 0] })), [900, 800])
  })
})

describe("the controlling terminal", () => {
  it("is tty_nr, or none when it is 0 or unreadable", () => {
    assert.strictEqual(controllingTerminal(5, fakeProc({ 5: [1, pts3] })), pts3)
    assert.strictEqual(controllingTerminal(5, fakeProc({ 5: [1, 0] })), undefined)
    assert.strictEqual(controllingTerminal(5, fakeProc({})), undefined)
  })
})

describe("the panes that contain a process", () => {
  const panes = [
    { pane_id: "%1", pane_pid: 700, pane_tty: "/dev/pts/3" },
    { pane_id: "%2", pane_pid: 710, pane_tty: "/dev/pts/4" },
    { pane_id: "%3", pane_pid: 720, pane_tty: "" }
  ]

  it("finds the pane whose process is an ancestor, with no terminal to go by", () => {
    const proc = fakeProc({ 900: [800, 0], 800: [700, 0], 700: [1, pts3] }, { "/dev/pts/3": pts3 })
    assert.deepStrictEqual(panesContaining(panes, 900, proc), ["%1"])
  })

  it("finds the pane whose terminal is the controlling terminal, when the pane's process is not an ancestor", () => {
    const proc = fakeProc({ 900: [1, pts4] }, { "/dev/pts/3": pts3, "/dev/pts/4": pts4 })
    assert.deepStrictEqual(panesContaining(panes, 900, proc), ["%2"])
  })

  it("finds the pane whose process is this process itself", () => {
    assert.deepStrictEqual(panesContaining(panes, 720, fakeProc({ 720: [1, 0] })), ["%3"])
  })

  it("finds none for a process outside every pane, or with no terminal and a terminal device that reads 0", () => {
    const proc = fakeProc({ 900: [800, 0], 800: [1, 0] }, { "/dev/pts/3": 0, "": 0 })
    assert.deepStrictEqual(panesContaining(panes, 900, proc), [])
    assert.deepStrictEqual(panesContaining(panes, 900, fakeProc({ 900: [1, pts3] }, {})), [])
  })
})

/** A read authority that answers `list-panes` from a script of results, counting the calls. */
const observing = (answers: Array<Effect.Effect<string, ServerNotRunning | TmuxTimedOut>>) => {
  const calls: Array<ReadonlyArray<ReadonlyArray<string>>> = []
  const layer = Layer.succeed(
    TmuxObserve,
    scriptedObserve((commands) => Effect.suspend(() => (calls.push(commands), answers.shift() ?? Effect.succeed(""))))
  )
  return { layer, calls }
}

const row = (...values: ReadonlyArray<string>) => `${values.join(FS)}${RS}\n`
const noEnvironment = { paneId: undefined, socketPath: undefined, onPinnedSocket: false }
const panesOf = (layer: Layer.Layer<ServerPane>, times = 1) =>
  Effect.runPromise(
    Effect.gen(function*() {
      const caller = yield* ServerPane
      const seen: Array<ReadonlyArray<string>> = []
      for (let i = 0; i < times; i++) seen.push(yield* Effect.orElseSucceed(caller.panes, () => ["failed"]))
      return seen
    }).pipe(Effect.provide(layer))
  )

describe("the live service", () => {
  const proc = fakeProc({ 900: [800, 0], 800: [700, 0], 700: [1, 0] })
  const lookup = { serverAtStartup: true, pid: 900, reader: proc }

  it("asks tmux nothing when no server answered at startup, and keeps TMUX_PANE on the pinned socket", async () => {
    const tmux = observing([])
    const environment = { paneId: "%9", socketPath: "/tmp/s", onPinnedSocket: true }
    const layer = ServerPaneLive.layer(environment, { ...lookup, serverAtStartup: false }).pipe(
      Layer.provide(tmux.layer)
    )
    assert.deepStrictEqual(await panesOf(layer), [["%9"]])
    assert.deepStrictEqual(tmux.calls, [])
  })

  it("ignores TMUX_PANE of another socket", async () => {
    const environment = { paneId: "%9", socketPath: "/tmp/other", onPinnedSocket: false }
    const layer = ServerPaneLive.layer(environment, { ...lookup, serverAtStartup: false }).pipe(
      Layer.provide(observing([]).layer)
    )
    assert.deepStrictEqual(await panesOf(layer), [[]])
  })

  it("lists the panes once, on first need, and keeps the answer", async () => {
    const tmux = observing([Effect.succeed(row("%1", "700", "/dev/pts/3") + row("%2", "710", "/dev/pts/4"))])
    const layer = ServerPaneLive.layer(noEnvironment, lookup).pipe(Layer.provide(tmux.layer))
    assert.deepStrictEqual(await panesOf(layer, 3), [["%1"], ["%1"], ["%1"]])
    assert.strictEqual(tmux.calls.length, 1)
    assert.deepStrictEqual(tmux.calls[0]![0]!.slice(0, 3), ["list-panes", "-a", "-F"])
  })

  it("asks again after a failed read, and takes a server gone since startup as no pane", async () => {
    const timedOut = Effect.fail(new TmuxTimedOut({ command: "list-panes", timeoutMs: 10 }))
    const tmux = observing([timedOut, Effect.fail(new ServerNotRunning({ socket: "s" }))])
    const layer = ServerPaneLive.layer(noEnvironment, lookup).pipe(Layer.provide(tmux.layer))
    assert.deepStrictEqual(await panesOf(layer, 3), [["failed"], [], []])
    assert.strictEqual(tmux.calls.length, 2)
  })
})
