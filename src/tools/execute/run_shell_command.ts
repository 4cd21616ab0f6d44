/** run_shell_command: type a shell command into a pane and return its exit status and its own output. */
import * as Clock from "effect/Clock"
import * as Effect from "effect/Effect"
import * as Option from "effect/Option"
import * as Schema from "effect/Schema"
import { tailBound } from "../../domain/bounds.ts"
import { commandProblem, runIdPattern } from "../../domain/shellProtocol.ts"
import { manifest } from "../../manifest/index.ts"
import { boundFields, outputLimits, truncationFields } from "../../programs/outputBounds.ts"
import { type EarlierRun, recordedRun } from "../../programs/paneClaim.ts"
import { resumeRun, type RunOutcome, startRun } from "../../programs/shellRun.ts"
import { PaneId } from "../../programs/targets.ts"
import { stringVariable } from "../../programs/variables.ts"
import { effectiveTimeout, timeoutField, withProgress } from "../../programs/waiting.ts"
import { Config } from "../../services/Config.ts"
import { InputInvalid, PaneNotReady } from "../../services/errors.ts"
import { ShellRuns } from "../../services/ShellRuns.ts"
import { defineTool } from "../define.ts"

const RunId = Schema.String.check(Schema.isPattern(runIdPattern)).annotate({
  description: "instead of command: a run_id of this pane to wait for again"
})

/** @category tools */
export const run_shell_command = defineTool(manifest.run_shell_command, {
  description: "Run a shell command in a pane's shell at its prompt; return its exit status and own output " +
    "(scrolled-off lines too; tabs as spaces, trailing spaces kept, no final newline). It runs in a subshell (cd, " +
    "export do not persist) unless in_shell. On timeout (timed_out, run_id, output so far) it runs on: resume with " +
    "run_id for its status (not `echo $?`) and newer output. Input waits (pager, prompt): blocked_by, run_id " +
    "within ~1 s; answer/quit via send_keys (q: pager), then resume. Avoid pagers: git --no-pager, PAGER=cat.",
  input: Schema.Struct({
    pane_id: PaneId,
    command: Schema.optionalKey(
      Schema.String.check(Schema.isMinLength(1), Schema.isMaxLength(100_000)).annotate({
        description: "the shell command (lines allowed); give command or resume"
      })
    ),
    resume: Schema.optionalKey(RunId),
    timeout: timeoutField,
    ...boundFields,
    suppress_history: Schema.optionalKey(Schema.Boolean.annotate({
      description: "prefix a space to keep it out of shell history (best effort)"
    })),
    in_shell: Schema.optionalKey(Schema.Boolean.annotate({
      description: "run in the shell (as fish does): state persists; exit, set -e, traps act on it"
    })),
    whole_output: Schema.optionalKey(Schema.Boolean.annotate({
      description: "resume: all output, not just new"
    }))
  }),
  output: Schema.Struct({
    pane_id: stringVariable("pane_id"),
    exit_status: Schema.NullOr(Schema.Int).annotate({
      description: "the command's exit status; null when it timed out, is blocked or ended the shell"
    }),
    shell_exited: Schema.optionalKey(
      Schema.Struct({
        exit_status: Schema.NullOr(Schema.Int).annotate({
          description: "the shell's exit status; null when a signal ended it"
        })
      }).annotate({
        description: "present when the command ended the pane's shell (exit under in_shell or in fish): the pane " +
          "is left dead showing its last output; respawn_pane starts a new shell in it"
      })
    ),
    timed_out: Schema.Boolean.annotate({
      description: "the timeout passed first; the command keeps running (see run_id)"
    }),
    blocked_by: Schema.optionalKey(Schema.String.annotate({
      description: "the program waiting for terminal input (a pager, a prompt, a " +
        "full-screen program); answer or quit it with send_keys, then resume"
    })),
    run_id: Schema.optionalKey(
      Schema.String.annotate({
        description: "present when the run is not finished: pass it as resume to wait for it again"
      })
    ),
    elapsed_seconds: Schema.Finite.annotate({
      description:
        "seconds since the call began, including waiting for the shell's prompt and for other calls on the pane"
    }),
    effective_timeout: Schema.Finite.annotate({
      description: "the timeout actually used, in seconds, after the ceiling"
    }),
    output: Schema.String.annotate({
      description: "the command's own output as the terminal shows it (tabs as spaces, trailing spaces kept, no " +
        "final newline); see output_from"
    }),
    output_from: Schema.Literals(["start", "previous_answer"]).annotate({
      description: "start: the output from the run's start; previous_answer: only what came after the output the " +
        "previous answer for this run returned (whole_output gives it all)"
    }),
    output_start_lost: Schema.Boolean.annotate({
      description: "true when the output outgrew the pane's history and its beginning is gone"
    }),
    output_start_unknown: Schema.Boolean.annotate({
      description: "true when where the output begins could not be found (the typed line was redrawn over and " +
        "the terminal echoed it): output is then empty rather than risk returning older rows"
    }),
    ...truncationFields,
    truncated_at_least: Schema.optionalKey(Schema.Boolean.annotate({
      description: "present when counting the truncated lines and bytes stopped early (at the timeout, or as " +
        "the history was trimmed under a run still printing): there are more"
    })),
    shell: Schema.String.annotate({ description: "the shell the command ran in" }),
    earlier_run: Schema.optionalKey(
      Schema.Struct({
        run_id: Schema.String.annotate({ description: "the run typed earlier in this pane" }),
        exit_status: Schema.NullOr(Schema.Int).annotate({
          description: "its exit status; null when it never reported one"
        })
      }).annotate({
        description: "present when an earlier run of this pane had ended without being collected (it timed " +
          "out or was cancelled): its outcome, reported once"
      })
    )
  }),
  run: (input) =>
    Effect.gen(function*() {
      if ((input.command === undefined) === (input.resume === undefined)) {
        return yield* new InputInvalid({
          tool: "run_shell_command",
          detail: "give exactly one of command (a new run) and resume (a run_id to wait for again)"
        })
      }
      if (input.command === undefined ? input.in_shell !== undefined : input.whole_output !== undefined) {
        return yield* new InputInvalid({
          tool: "run_shell_command",
          detail: input.command === undefined
            ? "in_shell goes with command (a new run); a resumed run keeps where it runs"
            : "whole_output goes with resume (a new run's output is whole)"
        })
      }
      const problem = input.command === undefined ? undefined : commandProblem(input.command)
      if (problem !== undefined) {
        return yield* new InputInvalid({ tool: "run_shell_command", detail: `command ${problem}` })
      }
      const { config } = yield* Config
      const runs = yield* ShellRuns
      const timeout = yield* effectiveTimeout(input.timeout)
      const started = yield* Clock.currentTimeMillis
      const deadline = started + timeout * 1000
      const known = input.resume === undefined ? undefined : yield* runs.lookup(input.resume)
      // What this process does not hold, the pane's own record may: typed by another instance, or
      // before a restart.
      const recorded = known?._tag === "Unknown" ? yield* recordedRun(input.pane_id, input.resume!) : undefined
      const held = recorded === undefined ? known : { _tag: "Pending" as const, run: recorded }
      if (held !== undefined && (held._tag !== "Pending" || held.run.paneId !== input.pane_id)) {
        const detail = held._tag === "Collected"
          ? `run ${input.resume} was already collected (its result was returned)`
          : held._tag === "Pending"
          ? `run ${input.resume} belongs to pane ${held.run.paneId}, not ${input.pane_id}`
          : `run ${input.resume} is not recorded on pane ${input.pane_id} (run IDs come from timed-out, ` +
            "blocked or cancelled results; a collected run's record is gone)"
        return yield* new InputInvalid({ tool: "run_shell_command", detail: `resume: ${detail}` })
      }
      const limits = {
        maxLines: input.max_lines ?? outputLimits.maxLines,
        maxBytes: input.max_bytes ?? outputLimits.maxBytes,
        // Counting what a very long output left out may take seconds: the call keeps its timeout.
        countUntil: deadline + 1000,
        whole: input.whole_output === true
      }
      const work = held?._tag === "Pending"
        ? Effect.map(resumeRun(held.run, deadline, limits), (outcome) => ({ run: held.run, outcome, earlier: [] }))
        : startRun({
          paneId: input.pane_id,
          command: input.command!,
          inShell: input.in_shell === true,
          suppressHistory: input.suppress_history ?? config.suppressHistory,
          deadline,
          limits
        })
      const turn = yield* withProgress(
        timeout,
        `running in ${input.pane_id}`,
        runs.exclusive(input.pane_id, deadline - started, work)
      )
      if (Option.isNone(turn)) {
        return yield* new PaneNotReady({
          pane: input.pane_id,
          reason: "other run_shell_command calls on this pane held it for the whole timeout; nothing was typed",
          remedy: "call again (it is safe), or use another pane for parallel work"
        })
      }
      const { run, outcome, earlier } = turn.value as {
        readonly run: { readonly id: string; readonly shell: string }
        readonly outcome: RunOutcome
        readonly earlier: ReadonlyArray<EarlierRun>
      }
      const finished = yield* Clock.currentTimeMillis
      const bounded = tailBound(outcome.output.lines, limits.maxLines, limits.maxBytes)
      return {
        pane_id: input.pane_id,
        exit_status: outcome._tag === "Finished" ? outcome.output.status ?? null : null,
        ...(outcome._tag === "ShellExited" ? { shell_exited: { exit_status: outcome.status } } : {}),
        timed_out: outcome._tag === "TimedOut",
        ...(outcome._tag === "Blocked" ? { blocked_by: outcome.by } : {}),
        ...(outcome._tag === "Finished" || outcome._tag === "ShellExited" ? {} : { run_id: run.id }),
        elapsed_seconds: Math.round(finished - started) / 1000,
        effective_timeout: timeout,
        output: bounded.lines.join("\n"),
        output_from: outcome.output.continued ? "previous_answer" as const : "start" as const,
        output_start_lost: outcome.output.startLost,
        output_start_unknown: outcome.output.startUnknown,
        truncated_lines: bounded.truncatedLines + outcome.output.droppedLines,
        truncated_bytes: bounded.truncatedBytes + outcome.output.droppedBytes,
        ...(outcome.output.countPartial ? { truncated_at_least: true } : {}),
        shell: run.shell,
        ...(earlier.length === 0 ? {} : { earlier_run: earlier.at(-1)! })
      }
    })
})
