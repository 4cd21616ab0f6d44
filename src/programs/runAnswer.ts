/**
 * Answering a held run (run_shell_command's `answer`, `answer_key`): the text or key is typed only
 * while the kernel shows the run's program in front holding the keyboard, read just before, and by
 * one tmux command list whose guard checks, as tmux runs it, that the claim is still this run's, its
 * end record has not come, no tmux mode is up, synchronize-panes is off and the program in front is
 * the one seen. Otherwise nothing is typed and the call says why.
 */
import * as Effect from "effect/Effect"
import { marks } from "../domain/protocolNames.ts"
import { commandsOf, type RunState, stateOnPane } from "../domain/runMachine.ts"
import { type TmuxRefusal } from "../domain/tmuxRefusals.ts"
import { ArgumentProblem, PaneNotReady, type TmuxCommandFailed } from "../services/errors.ts"
import { type Run } from "../services/ShellRuns.ts"
import { PaneCommand } from "../services/Tmux.ts"
import type { Row } from "../services/TmuxReads.ts"
import { keyboardHolderOf } from "./keyboardHolder.ts"
import { sendCommands } from "./keys.ts"
import { orPaneNotFound, readAndCapture } from "./pane.ts"
import { runFields } from "./paneClaim.ts"
import { headOfRun, kernelProbe } from "./runHead.ts"

/** What an answer types. @category models */
export type Answer =
  | { readonly _tag: "Text"; readonly text: string; readonly enter: boolean }
  | { readonly _tag: "Key"; readonly key: string }

const answerRefusedMark = marks.answerRefused

/**
 * Why the guard refused, from the option tmux found invalid (`ended` when the claim or the end
 * record says the run ended); `undefined` for any other failure.
 */
export const answerRefusal = (refusal: TmuxRefusal, run: Run, program: string): string | undefined => {
  if (refusal._tag !== "InvalidOption" || !refusal.option.startsWith(`${answerRefusedMark}:`)) return undefined
  const seen = refusal.option.slice(answerRefusedMark.length + 1)
  const [claim = "", mode = "", sync = ""] = seen.split(":")
  if (claim !== run.id) return `run ${run.id} ended as the answer was about to be typed`
  if (mode === "1") return "the pane entered copy mode (or another tmux mode)"
  if (sync === "1") return "synchronize-panes was turned on in its window"
  if (!seen.startsWith(`${claim}:0:0:${program}:`)) return "the program in front changed as the answer was typed"
  return `run ${run.id} ended as the answer was about to be typed`
}

/** What an answer reads of its pane before typing: the run's fields, synchronize-panes, and the screen. */
const lookFields = { ...runFields, "synchronize-panes": "string" } as const
type Look = Row<typeof lookFields> & { readonly screen: string }

/** Why the pane, as read, takes no answer for `run` (it ended, a mode, synchronize-panes), or undefined. */
const refusalBefore = (run: Run, look: Look, state: RunState) => {
  const nothing = "nothing was typed"
  // Only a run that holds its pane without an end is answered (the machine's `Answer` moves from `Held`).
  if (state._tag !== "Held") {
    return new ArgumentProblem({
      detail: `answer: run ${run.id} has ended (its status report came, or it no longer holds the pane); ` +
        `${nothing}. Call run_shell_command with resume "${run.id}" and no answer for its exit status and output`
    })
  }
  if (look.pane_in_mode) {
    return new PaneNotReady({
      pane: run.paneId,
      reason: "in-mode",
      detail: `it is in copy mode (or another tmux mode), so the answer would go to the mode; ${nothing}`,
      remedy: "leave the mode first (send_keys with keys \"q\" and enter false), then answer again"
    })
  }
  if (look["synchronize-panes"] === "1") {
    return new PaneNotReady({
      pane: run.paneId,
      reason: "busy",
      detail: `synchronize-panes is on in its window, so the answer would reach every pane of it; ${nothing}`,
      remedy: "turn it off (set_synchronize_panes), then answer again"
    })
  }
  return undefined
}

/**
 * Types `answer` into `run`'s pane when its program in front waits for the keyboard, or C-c (an
 * interrupt) whatever the program does; returns the program and whether it was interrupted. Fails,
 * having typed nothing, when the run ended, it is working (but for C-c), or the pane is not as seen (a
 * mode, synchronize-panes, another program in front). The run's trailer then discards what its program
 * left unread (domain/runTemplates.ts `flush`): the shell never reads an answer as a command.
 */
export const answerRun = Effect.fn("runAnswer.answerRun")(function*(run: Run, answer: Answer) {
  const nothing = "nothing was typed"
  const read = yield* readAndCapture(run.paneId, lookFields, [
    "-N",
    "-S",
    "0",
    "-E",
    "-"
  ])
  const look = { ...read.state, screen: read.captured }
  // The run's state as its records show it: what the answer's move is asked of.
  const state = stateOnPane(yield* headOfRun(run.paneId, run.id), run)
  const refused = refusalBefore(run, look, state)
  if (refused !== undefined) return yield* refused
  // The kernel, read last before typing: who holds the keyboard, as readiness decides it.
  const kernel = yield* kernelProbe
  const holder = yield* keyboardHolderOf(look, yield* kernel.shell(look.pane_pid, look.pane_tty), kernel)
  // C-c is no answer: it interrupts the run whether its program reads the keyboard or works.
  const interrupt = answer._tag === "Key" && answer.key === "C-c"
  if (holder === undefined && !interrupt) {
    return yield* new PaneNotReady({
      pane: run.paneId,
      reason: "busy",
      detail: `run ${run.id} is not waiting for the keyboard (its program works, or is not seen reading the ` +
        `terminal); ${nothing}`,
      remedy: `call run_shell_command with resume "${run.id}" and no answer to wait for it; answer when it ` +
        `comes back blocked; to stop it, resume "${run.id}" with interrupt true`
    })
  }
  // Security: the name goes into the guard's format, so only a plain name does (no #, braces, commas).
  if (!/^[A-Za-z0-9._+-]{1,64}$/u.test(look.pane_current_command)) {
    return yield* new PaneNotReady({
      pane: run.paneId,
      reason: "busy",
      detail: `the program in front is named ${
        JSON.stringify(look.pane_current_command.slice(0, 64))
      } by tmux, which the answer's guard cannot check; ${nothing}`,
      remedy: `type the answer with send_keys, then call run_shell_command with resume "${run.id}"`
    })
  }
  const keys = answer._tag === "Text"
    ? sendCommands(run.paneId, { keys: answer.text, literal: true, enter: answer.enter })
    : [["send-keys", "-t", run.paneId, answer.key] as const]
  const answered = { _tag: "Answer", program: look.pane_current_command, keys } as const
  yield* (yield* PaneCommand).run(commandsOf(state, answered)).pipe(
    orPaneNotFound(run.paneId),
    Effect.catchIf(
      (error) =>
        error._tag === "TmuxCommandFailed" &&
        answerRefusal(error.refusal, run, look.pane_current_command) !== undefined,
      (error) =>
        new PaneNotReady({
          pane: run.paneId,
          reason: "changed",
          detail: `${answerRefusal((error as TmuxCommandFailed).refusal, run, look.pane_current_command)}; ${nothing}`,
          remedy: `call run_shell_command with resume "${run.id}" and no answer to see where it is`
        })
    )
  )
  return { program: holder?.program ?? look.pane_current_command, interrupted: interrupt }
})
