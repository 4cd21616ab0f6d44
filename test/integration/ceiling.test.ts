/**
 * A declared capability is a ceiling: every tool, run against a recording fake, issues only
 * commands of the authorities its manifest row allows, and each authority only its own commands.
 * Bad input, drawn at random, never crashes a call and never reaches a command that changes state.
 */
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import * as Schema from "effect/Schema"
import { it as effectIt } from "@effect/vitest"
import { assert, describe, it } from "vitest"
import * as RegistryLayer from "../../src/layers/Registry.ts"
import { manifest, type ManifestRow, type ToolName } from "../../src/manifest/index.ts"
import { changeCommands, commandCommands, deleteCommands, inputCommands, observeCommands, spawnCommands } from "../../src/services/Tmux.ts"
import { registeredNames } from "../../src/tools/index.ts"
import { makeFake } from "../support/fakeTmux.ts"

const closedSets: Record<string, ReadonlyArray<string>> = {
  TmuxObserve: observeCommands,
  TmuxChange: changeCommands,
  TmuxSpawn: spawnCommands,
  TmuxDelete: deleteCommands,
  PaneInput: inputCommands,
  PaneCommand: commandCommands
}

const allowedAuthorities = (row: ManifestRow): ReadonlyArray<string> => [
  "TmuxObserve",
  ...(row.effect.includes("change") ? ["TmuxChange"] : []),
  ...(row.effect.includes("delete") ? ["TmuxDelete"] : []),
  ...(row.reach === "configured-process" ? ["TmuxSpawn"] : []),
  ...(row.reach === "pane-input" || row.reach === "pane-command" ? ["PaneInput"] : []),
  ...(row.reach === "pane-command" ? ["PaneCommand"] : [])
]

/** Valid calls for every registered tool; a new tool without an entry fails the completeness test. */
const samples: Partial<Record<ToolName, ReadonlyArray<Record<string, unknown>>>> = {
  list_sessions: [{}],
  list_windows: [{}, { session_id: "$0" }, { session_name: "work" }],
  list_panes: [{}, { session_name: "work" }, { window_id: "@0" }],
  get_server_info: [{}],
  get_session_info: [{ session_id: "$0" }, { session_name: "work" }],
  get_window_info: [{ window_id: "@0" }, { session_name: "work", window_index: 0 }],
  get_pane_info: [{ pane_id: "%0" }],
  create_session: [{}, { session_name: "new", window_name: "w", width: 100, height: 30 }],
  create_window: [{ session_id: "$0" }, { session_name: "work", window_name: "w", select: true }],
  split_window: [{ pane_id: "%0" }, { pane_id: "%0", direction: "left", size_percent: 30 }],
  run_shell_command: [{ pane_id: "%0", command: "echo hi", timeout: 1 }],
  send_keys: [{ pane_id: "%0", keys: "C-c", enter: false }, { pane_id: "%0", keys: "ls", literal: true }],
  send_keys_batch: [{ operations: [{ pane_id: "%0", keys: "a" }, { pane_id: "%0", keys: "Enter", literal: false, enter: false }] }],
  paste_text: [{ pane_id: "%0", text: "pasted" }],
  capture_pane: [{ pane_id: "%0" }, { pane_id: "%0", start: -10, end: 5, escapes: true, join_wrapped: true, max_lines: 3 }],
  capture_since: [{ pane_id: "%0" }],
  snapshot_pane: [{ pane_id: "%0" }],
  search_panes: [{ pattern: "hi" }, { pattern: "h.", regex: true, session_name: "work", history_lines: 10 }],
  find_pane_by_position: [{ window_id: "@0", position: "center" }],
  wait_for_text: [{ pane_id: "%0", timeout: 0.05 }],
  wait_for_channel: [{ channel: "c", timeout: 0.05 }],
  signal_channel: [{ channel: "c" }],
  get_tmux_variables: [{ pane_id: "%0", names: ["pane_current_path", "session_name"] }],
  show_option: [{ scope: "server", name: "exit-empty" }, { scope: "session", name: "status", session_name: "work" }, { scope: "pane", name: "@x", pane_id: "%0" }],
  show_environment: [{}, { session_id: "$0", name: "PATH" }],
  show_hooks: [{}, { session_name: "work", name: "after-new-window" }],
  call_read_tools_batch: [{ operations: [{ tool: "list_sessions" }, { tool: "get_pane_info", arguments: { pane_id: "%0" } }], onError: "continue" }],
  rename_session: [{ session_id: "$0", new_name: "other" }],
  rename_window: [{ window_id: "@0", new_name: "w" }],
  select_window: [{ window_id: "@0" }, { session_name: "work", direction: "next" }, { session_name: "work", window_index: 0 }],
  select_pane: [{ pane_id: "%0" }, { pane_id: "%0", direction: "up" }, { pane_id: "%0", direction: "next" }],
  select_layout: [{ window_id: "@0", layout: "tiled" }],
  resize_window: [{ window_id: "@0", width: 100 }],
  resize_pane: [{ pane_id: "%0", height: 10 }, { pane_id: "%0", zoom: true }],
  move_window: [{ window_id: "@0" }, { window_id: "@0", to_session_name: "work", to_index: 5 }],
  // swap_pane needs two panes, which the one-pane fake lacks: it is checked end to end.
  swap_pane: [],
  set_pane_title: [{ pane_id: "%0", title: "t" }],
  enter_copy_mode: [{ pane_id: "%0", scroll_up: 3 }],
  exit_copy_mode: [{ pane_id: "%0" }],
  set_mouse_enabled: [{ global: true, enabled: true }, { session_id: "$0", enabled: false }],
  set_history_limit: [{ global: true, lines: 5000 }],
  respawn_pane: [{ pane_id: "%0" }, { pane_id: "%0", command: "top", kill: true }],
  set_synchronize_panes: [{ window_id: "@0", enabled: true }],
  clear_pane_scrollback: [{ pane_id: "%0" }],
  kill_pane: [{ pane_id: "%0" }],
  kill_window: [{ window_id: "@0" }],
  kill_session: [{ session_id: "$0" }, { session_name: "work" }]
}

const call = (name: string, args: unknown) => {
  const fake = makeFake()
  return Effect.gen(function*() {
    const registry = yield* RegistryLayer.Registry
    return { outcome: yield* registry.call(name, args), log: fake.log }
  }).pipe(Effect.provide(RegistryLayer.layer.pipe(Layer.provide(fake.layer))))
}
const run = (name: string, args: unknown) => Effect.runPromise(call(name, args))

describe("authority ceiling", () => {
  it("has samples for every registered tool", () => {
    assert.deepStrictEqual([...registeredNames].filter((name) => samples[name] === undefined), [])
  })

  for (const name of registeredNames) {
    it(`${name} issues only commands its row's authorities allow`, async () => {
      const allowed = allowedAuthorities(manifest[name])
      for (const args of samples[name] ?? []) {
        const { outcome, log } = await run(name, args)
        assert.strictEqual(outcome._tag, "Success", `${name} ${JSON.stringify(args)}: ${outcome._tag === "Failure" ? outcome.error.message : ""}`)
        assert.isAbove(log.length, 0, `${name} ran no tmux command`)
        for (const entry of log) {
          assert.include(allowed, entry.authority, `${name} used ${entry.authority}`)
          assert.isTrue(closedSets[entry.authority]?.includes(entry.command), `${entry.authority} ran ${entry.command}`)
        }
      }
    })
  }
})

describe("bad input", () => {
  const mutating = new Set([...changeCommands, ...spawnCommands, ...deleteCommands, ...inputCommands, ...commandCommands])
  for (const name of registeredNames) {
    effectIt.effect.prop(
      `${name} answers arbitrary JSON with a result or a clear error, never a crash or a half-done change`,
      [Schema.Json],
      ([args]) =>
        call(name, args).pipe(Effect.map(({ outcome, log }) => {
          if (outcome._tag === "Failure") {
            assert.isAbove(outcome.error.message.length, 0)
            if (outcome.error._tag === "InputInvalid") {
              assert.deepStrictEqual(log.filter((entry) => mutating.has(entry.command as never)), [])
            }
          }
        })),
      { arbitrary: { runs: 200 } }
    )
  }
})
