/**
 * Cancelling a run's open input (a command the shell still reads more of: an unclosed quote or
 * block) with C-c, and telling whether that worked. A shell that ignores SIGINT (`trap '' INT`)
 * keeps its continuation prompt, and anything typed next would join the open input.
 */
import * as Clock from "effect/Clock"
import * as Effect from "effect/Effect"
import { commandsOf } from "../domain/runMachine.ts"
import { showsPrompt } from "../domain/shellProtocol.ts"
import type { Run } from "../services/ShellRuns.ts"
import { PaneCommand } from "../services/Tmux.ts"
import { orPaneNotFound } from "./pane.ts"
import { lines } from "./runHead.ts"

/** How long C-c gets to bring the prompt back, and how often the pane is looked at meanwhile. */
const cancelWait = 500
const cancelPoll = 50

/**
 * Sends C-c and watches the cursor's row: `cleared` when the run's prompt is drawn there again,
 * `moved` when the cursor went to another row (the shell answered C-c; its prompt may look other
 * than it did), `stuck` when neither happened within `cancelWait`: the input is still open. A
 * look that fails (the pane gone) counts as `moved`: the caller closes the run as before.
 */
export const cancelOpenInput = (run: Run, before: { readonly history: number; readonly cursorY: number }) =>
  Effect.gen(function*() {
    const tmux = yield* PaneCommand
    yield* tmux.run([["send-keys", "-t", run.paneId, "C-c"]]).pipe(Effect.ignore)
    const until = (yield* Clock.currentTimeMillis) + cancelWait
    while (true) {
      yield* Effect.sleep(cancelPoll)
      const [position = "", ...rows] = lines(
        yield* tmux.run([
          ["display-message", "-p", "-t", run.paneId, "#{history_size} #{cursor_y} #{cursor_x}"],
          ["capture-pane", "-p", "-N", "-t", run.paneId]
        ]).pipe(orPaneNotFound(run.paneId))
      )
      const [history = 0, cursorY = 0, cursorX = 0] = position.split(" ").map(Number)
      if (showsPrompt(run.prompt, rows[cursorY] ?? "", cursorX)) return "cleared" as const
      if (history + cursorY !== before.history + before.cursorY) return "moved" as const
      if ((yield* Clock.currentTimeMillis) >= until) return "stuck" as const
    }
  }).pipe(Effect.orElseSucceed(() => "moved" as const))

/** A run whose open input C-c did not cancel keeps the pane (the machine's `KeptOpen`). */
export const keepOpenCommands = (run: Run) => commandsOf({ _tag: "Held", run }, { _tag: "KeptOpen" })
