/**
 * The Tmux contract's typed reads over a scripted read authority: they issue only read commands
 * with our fixed formats, decode rows by kind, refuse output whose shape is off, and say "no such
 * pane" when tmux answers a pane read with empty fields.
 */
import * as Effect from "effect/Effect"
import * as Exit from "effect/Exit"
import { assert, describe, it } from "vitest"
import type { PaneId } from "../../src/domain/ids.ts"
import type { TmuxError } from "../../src/services/errors.ts"
import type { TmuxCommand } from "../../src/services/Tmux.ts"
import { grammar } from "../../src/services/TmuxGrammar.ts"
import { formatOf, FS, make, paneFields, readBack, RS, sessionFields } from "../../src/services/TmuxReads.ts"
import { scriptedObserve } from "../support/scriptedTmux.ts"

/** A read authority that answers with `stdout` and records what it was asked. */
const scripted = (stdout: string) => {
  const issued: Array<ReadonlyArray<TmuxCommand<string>>> = []
  const observe = scriptedObserve((commands) =>
    Effect.sync(() => (issued.push(commands as ReadonlyArray<TmuxCommand<string>>), stdout)) as Effect.Effect<
      string,
      TmuxError
    >
  )
  return { reads: make(observe), issued }
}

const record = (...values: ReadonlyArray<string>) => `${values.join(FS)}${RS}\n`

describe("typed reads", () => {
  it("formats are fixed field references, one per field, ended by the record separator", () => {
    assert.strictEqual(
      formatOf({ session_id: "string", session_windows: "int" }),
      `#{session_id}${FS}#{session_windows}${RS}`
    )
    for (const fields of [sessionFields, paneFields]) {
      // oxlint-disable-next-line no-control-regex -- the separators are control characters
      assert.match(formatOf(fields), /^(#\{[a-z_]+\}[\u001e\u001f])+$/u)
    }
    assert.deepStrictEqual(readBack.panes("%3"), ["list-panes", "-t", "%3", "-F", formatOf(paneFields)])
  })

  it("decodes sessions by kind from one list-sessions", async () => {
    const { reads, issued } = scripted(
      record("$1", "work space", "2", "0", "1700000000", "/tmp") + record("$2", "b", "1", "1", "1700000001", "/")
    )
    const rows = await Effect.runPromise(reads.sessions())
    assert.deepStrictEqual(
      rows.map((row) => [row.session_id, row.session_name, row.session_windows, row.session_attached]),
      [
        ["$1", "work space", 2, 0],
        ["$2", "b", 1, 1]
      ]
    )
    assert.deepStrictEqual(issued, [[["list-sessions", "-F", formatOf(sessionFields)]]])
  })

  it("checks the IDs it reads, so a branded ID is one tmux printed in its form", async () => {
    const { reads } = scripted(record("3", "work", "2", "0", "1700000000", "/tmp"))
    const exit = await Effect.runPromiseExit(reads.sessions())
    assert.isTrue(Exit.isFailure(exit))
    assert.include(JSON.stringify(exit), "session_id is no ID")
  })

  it("refuses a record with the wrong number of fields", async () => {
    const { reads } = scripted(record("$1", "a", "2"))
    const exit = await Effect.runPromiseExit(reads.sessions())
    assert.isTrue(Exit.isFailure(exit))
    assert.match(String(Exit.isFailure(exit) && exit.cause), /unexpected output shape/u)
  })

  it("reads one pane's fields, and says no such pane when tmux printed empty fields", async () => {
    const found = scripted(`%3${FS}${record("1", "bash")}`)
    assert.deepStrictEqual(
      await Effect.runPromise(found.reads.pane("%3" as PaneId, { pane_dead: "bool", pane_current_command: "string" })),
      {
        pane_dead: true,
        pane_current_command: "bash"
      }
    )
    assert.deepStrictEqual(found.issued, [[[
      "display-message",
      "-p",
      "-t",
      "%3",
      `#{pane_id}${FS}#{pane_dead}${FS}#{pane_current_command}${RS}`
    ]]])
    const empty = scripted(`%3${FS}${record("")}`)
    assert.deepStrictEqual(await Effect.runPromise(empty.reads.pane("%3" as PaneId, { pane_title: "string" })), {
      pane_title: ""
    })
    const missing = scripted(`${FS}${record("", "")}`)
    const exit = await Effect.runPromiseExit(
      missing.reads.pane("%99" as PaneId, { pane_dead: "bool", pane_current_command: "string" })
    )
    assert.match(String(Exit.isFailure(exit) && exit.cause), /no such pane: %99/u)
  })

  it("reads state and capture in one invocation and splits them", async () => {
    const { reads, issued } = scripted(`%3${FS}${record("7")}line 1\nline 2\n`)
    const { state, captured } = await Effect.runPromise(
      reads.paneAndCapture("%3" as PaneId, { history_size: "int" }, ["-S", "-2"])
    )
    assert.deepStrictEqual(state, { history_size: 7 })
    assert.strictEqual(captured, "line 1\nline 2\n")
    assert.deepStrictEqual(issued[0]?.map((command) => command[0]), ["display-message", "capture-pane"])
    assert.isTrue(issued.flat().every((command) => Object.hasOwn(grammar.TmuxObserve, command[0])))
  })

  it("reads state and several captures of the same moment in one invocation and splits them", async () => {
    const { reads, issued } = scripted(`%3${FS}${record("7")}row 1 \nrow 2\n${FS}${RS}${FS}\nrow 1 row 2\n`)
    const { state, captured } = await Effect.runPromise(
      reads.paneAndCaptures("%3" as PaneId, { history_size: "int" }, [["-N"], ["-J"]])
    )
    assert.deepStrictEqual(state, { history_size: 7 })
    assert.deepStrictEqual(captured, ["row 1 \nrow 2\n", "row 1 row 2\n"])
    assert.deepStrictEqual(issued[0]?.map((command) => command.slice(0, 1).concat(command.slice(4))), [
      ["display-message", `#{pane_id}${FS}#{history_size}${RS}`],
      ["capture-pane", "-N"],
      ["display-message", `${FS}${RS}${FS}`],
      ["capture-pane", "-J"]
    ])
    assert.isTrue(issued.flat().every((command) => Object.hasOwn(grammar.TmuxObserve, command[0])))
  })
})
