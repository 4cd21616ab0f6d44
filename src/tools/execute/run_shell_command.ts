/** run_shell_command: type a shell command into a pane and return its exit status and its own output. */
import * as Clock from "effect/Clock"
import * as Effect from "effect/Effect"
import * as Schema from "effect/Schema"
import { tailBound } from "../../domain/bounds.ts"
import { commandProblem, needsStartMark, typedText } from "../../domain/shellProtocol.ts"
import { manifest } from "../../manifest/index.ts"
import { Config } from "../../services/Config.ts"
import { InputInvalid } from "../../services/errors.ts"
import { SocketPin } from "../../services/SocketPin.ts"
import { boundFields, outputLimits, truncationFields } from "../bounds.ts"
import { defineTool } from "../define.ts"
import { awaitShellReady, newCallId, typeAndAwait, withdraw, withdrawQuietly } from "../shellRun.ts"
import { PaneId } from "../targets.ts"
import { effectiveTimeout, timeoutField, withProgress } from "../waiting.ts"

/** @category tools */
export const run_shell_command = defineTool(manifest.run_shell_command, {
  description: "Type one shell command into a pane's shell, wait for it to finish, and return its exit status and " +
    "exactly its own output (not the rest of the screen, not the typed command), including lines that scrolled into " +
    "history. Prefer it to send_keys followed by polling: it types, waits and captures in one call. " +
    "The command runs in a subshell of the pane's shell, on the pane's terminal (colours, pagers and prompts behave " +
    "as for a person), so `cd` and `export` do not persist; the typed wrapper is visible in the pane. " +
    "Before typing it checks that the shell is at its prompt (not in copy mode, not a full-screen program, no other " +
    "command running) and refuses otherwise, saying what is in the way. On timeout it returns the output so far with " +
    "timed_out true; the command keeps running. Shells: bash, zsh, dash/sh, ksh, fish.",
  input: Schema.Struct({
    pane_id: PaneId,
    command: Schema.String.check(Schema.isMinLength(1), Schema.isMaxLength(100_000)).annotate({
      description: "the shell command (several lines allowed)"
    }),
    timeout: timeoutField,
    ...boundFields,
    suppress_history: Schema.optionalKey(Schema.Boolean.annotate({
      description: "prefix a space so shells that ignore space-prefixed commands keep it out of history (default from LIBTMUX_SUPPRESS_HISTORY; best effort)"
    }))
  }),
  output: Schema.Struct({
    pane_id: Schema.String,
    exit_status: Schema.NullOr(Schema.Int).annotate({ description: "the command's exit status; null when it timed out" }),
    timed_out: Schema.Boolean,
    elapsed_seconds: Schema.Finite,
    effective_timeout: Schema.Finite.annotate({ description: "the timeout actually used, in seconds, after the ceiling" }),
    output: Schema.String,
    output_start_lost: Schema.Boolean.annotate({ description: "true when the output outgrew the pane's history and its beginning is gone" }),
    ...truncationFields,
    shell: Schema.String
  }),
  run: (input) =>
    Effect.gen(function*() {
      const problem = commandProblem(input.command)
      if (problem !== undefined) return yield* new InputInvalid({ tool: "run_shell_command", detail: `command ${problem}` })
      const { config, tmuxPath } = yield* Config
      const pin = yield* SocketPin
      const timeout = yield* effectiveTimeout(input.timeout)
      const started = yield* Clock.currentTimeMillis
      const deadline = started + timeout * 1000
      const { state, kind, shell } = yield* awaitShellReady(input.pane_id, deadline)
      const id = newCallId()
      const text = typedText({
        kind,
        command: input.command,
        id,
        paneId: input.pane_id,
        tmuxPath,
        socketPath: pin.resolvedPath,
        suppressHistory: input.suppress_history ?? config.suppressHistory,
        markStart: needsStartMark(shell)
      })
      const startGuess = state.history_size + state.cursor_y
      const sent = yield* Clock.currentTimeMillis
      const outcome = yield* withProgress(timeout, `running in ${input.pane_id}`, typeAndAwait(input.pane_id, id, text, startGuess, state.history_size, deadline - sent)).pipe(
        Effect.map((result) => ({ result, timedOut: false })),
        Effect.catchTag("TmuxTimedOut", () =>
          Effect.map(withdraw(input.pane_id, id, startGuess, state.history_size), (result) => ({ result, timedOut: result.status === undefined }))),
        Effect.onInterrupt(() => withdrawQuietly(input.pane_id, id))
      )
      const finished = yield* Clock.currentTimeMillis
      const bounded = tailBound(outcome.result.lines, input.max_lines ?? outputLimits.maxLines, input.max_bytes ?? outputLimits.maxBytes)
      return {
        pane_id: input.pane_id,
        exit_status: outcome.timedOut ? null : outcome.result.status ?? null,
        timed_out: outcome.timedOut,
        elapsed_seconds: Math.round(finished - sent) / 1000,
        effective_timeout: timeout,
        output: bounded.lines.join("\n"),
        output_start_lost: outcome.result.startLost,
        truncated_lines: bounded.truncatedLines,
        truncated_bytes: bounded.truncatedBytes,
        shell
      }
    })
})
