/** run_shell_command: type a shell command into a pane and return its exit status and its own output. */
import * as Clock from "effect/Clock"
import * as Deferred from "effect/Deferred"
import * as Effect from "effect/Effect"
import * as Option from "effect/Option"
import * as Schema from "effect/Schema"
import { controlCharacter, maxAnswer } from "../../domain/answerText.ts"
import { type Bounded, tailBound } from "../../domain/bounds.ts"
import { PaneId } from "../../domain/ids.ts"
import { type BlockKind, blockKinds } from "../../domain/keyboard.ts"
import { runIdPattern } from "../../domain/protocolNames.ts"
import { quitAdvice } from "../../domain/quitAdvice.ts"
import { attachCommandFor } from "../../domain/quote.ts"
import { markOf, readRecord, type RecordedTask } from "../../domain/runRecord.ts"
import { commandProblem } from "../../domain/shellProtocol.ts"
import { sameNonce } from "../../domain/tasks.ts"
import { watchCommandLine } from "../../domain/watchCommand.ts"
import { manifest } from "../../manifest/index.ts"
import { kindText, secretRemedy } from "../../programs/keyboardHolder.ts"
import { noNul } from "../../programs/keys.ts"
import { boundFields, outputLimits, truncationFields } from "../../programs/outputBounds.ts"
import { type EarlierRun } from "../../programs/paneClaim.ts"
import { type Answer, answerRun } from "../../programs/runAnswer.ts"
import { resumeRun, type RunOutcome } from "../../programs/runAwait.ts"
import { headOfRun } from "../../programs/runHead.ts"
import { collectedElsewhere, type RunOutput, undecodableRecord } from "../../programs/runReadBack.ts"
import { startRun } from "../../programs/runTyping.ts"
import { usually } from "../../programs/usual.ts"
import { idVariable } from "../../programs/variables.ts"
import {
  effectiveTimeout,
  effectiveTimeoutField,
  reportedTimeout,
  timeoutField,
  withProgress
} from "../../programs/waiting.ts"
import { Config } from "../../services/Config.ts"
import { ArgumentProblem, PaneNotReady } from "../../services/errors.ts"
import { runIdMetaKey } from "../../services/Progress.ts"
import { ShellRuns } from "../../services/ShellRuns.ts"
import { SocketPin } from "../../services/SocketPin.ts"
import { TaskCall } from "../../services/TaskCall.ts"
import { defineTool } from "../define.ts"

const RunId = Schema.String.check(Schema.isPattern(runIdPattern)).annotate({
  description: "a run_id to wait for again"
})

/** A tmux key name: a name or one printable character, after C-, M-, S- modifiers. */
const keyName = /^(?:[CMS]-){0,3}(?:[A-Za-z][A-Za-z0-9]{0,11}|[!-~])$/u

/** What a blocked run's result tells the agent to do next. */
const nextStep = (
  blocked: { readonly by: string; readonly kind: BlockKind; readonly executable?: string },
  attach: string
): string =>
  blocked.kind === "secret"
    ? `${secretRemedy}. The user can type it after attaching with: ${attach}; then resume`
    : `${blocked.by} holds the keyboard (${kindText[blocked.kind]}): answer it with resume and answer (or ` +
      `answer_key), or quit it with ${quitAdvice(blocked.kind, [blocked.by, blocked.executable], "answer")}`

/** A timed-out run's `watch_command`, when this process is the libtmux-mcp command and its paths quote alike. */
const watchCommandOf = (runId: string, paneId: string) =>
  Effect.gen(function*() {
    const { config, entry, tmuxPath } = yield* Config
    const line = entry === undefined ? undefined : watchCommandLine({
      entry,
      tmuxPath,
      socketPath: (yield* SocketPin).resolvedPath,
      runId,
      paneId,
      ssh: config.watchSsh
    })
    return line === undefined ? {} : { watch_command: line }
  })

/** @category tools */
/**
 * How the output's first line meets the previous answer's last (see runReadBack.ts `FirstLine`):
 * only while nothing before it was left out, since otherwise it is not that line.
 */
const firstLineField = (output: RunOutput, bounded: Bounded) =>
  output.firstLine === undefined ||
    bounded.truncatedLines + bounded.truncatedBytes + output.droppedLines + output.droppedBytes > 0
    ? {}
    : { output_first_line: output.firstLine }

/** What run_shell_command takes. */
const RunInput = Schema.Struct({
  pane_id: PaneId,
  command: Schema.optionalKey(
    Schema.String.check(Schema.isMinLength(1), Schema.isMaxLength(100_000)).annotate({
      description: "the shell command (lines allowed)"
    })
  ),
  resume: Schema.optionalKey(RunId),
  timeout: timeoutField,
  ...boundFields,
  suppress_history: Schema.optionalKey(Schema.Boolean.annotate({
    description: "out of shell history (best effort)"
  })),
  in_shell: Schema.optionalKey(Schema.Boolean.annotate({
    description: "state persists; exit, set -e, traps act on the shell"
  })),
  whole_output: Schema.optionalKey(Schema.Boolean.annotate({
    description: "all output, not just new"
  })),
  answer: Schema.optionalKey(
    Schema.String.annotate({ description: "text typed first, then Enter" }).check(noNul)
  ),
  answer_key: Schema.optionalKey(Schema.String.annotate({ description: "a key (C-d) instead" })),
  enter: Schema.optionalKey(Schema.Boolean.annotate({ description: "with answer: Enter after it (default true)" })),
  interrupt: Schema.optionalKey(Schema.Boolean.annotate({
    description: "with resume: C-c to the run's program, then its end with what it printed"
  }))
})

/** What is wrong with a call's arguments together (each alone fits the schema), or undefined. */
const argumentProblem = (input: typeof RunInput.Type): string | undefined => {
  if ((input.command === undefined) === (input.resume === undefined)) {
    return "give exactly one of command (a new run) and resume (a run_id to wait for again)"
  }
  if (input.command === undefined ? input.in_shell !== undefined : input.whole_output !== undefined) {
    return input.command === undefined
      ? "in_shell goes with command (a new run); a resumed run keeps where it runs"
      : "whole_output goes with resume (a new run's output is whole)"
  }
  if (
    (input.answer !== undefined || input.answer_key !== undefined) &&
    (input.resume === undefined || (input.answer !== undefined && input.answer_key !== undefined))
  ) {
    return input.resume === undefined
      ? "answer and answer_key go with resume (the blocked run to answer)"
      : "give at most one of answer (text) and answer_key (a key name)"
  }
  if (input.answer !== undefined && (input.answer === "" || input.answer.length > maxAnswer)) {
    return `answer must be 1 to ${maxAnswer} characters (typed in one tmux command list); got ` +
      `${input.answer.length}; a key alone goes in answer_key`
  }
  const control = input.answer === undefined ? -1 : input.answer.search(controlCharacter)
  if (control !== -1) {
    return `answer is one line of text: it holds a control character (U+${
      input.answer!.codePointAt(control)!.toString(16).toUpperCase().padStart(4, "0")
    } at offset ${control}), which the program or the shell after it would read as a key (a newline ` +
      "ends the line, so the rest would reach whatever reads next); answer one line per resume, and a " +
      "key (C-d, Tab, Escape) with answer_key"
  }
  if (
    input.interrupt !== undefined && (input.resume === undefined || input.answer !== undefined ||
      input.answer_key !== undefined)
  ) {
    return input.resume === undefined
      ? "interrupt goes with resume (the run to interrupt)"
      : "interrupt is C-c to the run: give it without answer or answer_key"
  }
  if (input.answer_key !== undefined && !keyName.test(input.answer_key)) {
    return "answer_key must be one tmux key name (C-d, Enter, Escape, q, M-x ...); text goes in answer"
  }
  if (input.enter !== undefined && input.answer === undefined) {
    return "enter goes with answer (answer_key types one key alone)"
  }
  const problem = input.command === undefined ? undefined : commandProblem(input.command)
  return problem === undefined ? undefined : `command ${problem}`
}

/**
 * The run a resume names, as this process holds it or, failing that, as the pane records it (typed by
 * another instance, or before a restart), with the head read and the record decoded on the way (a
 * resume then waits on that read). A record copied or forged onto this pane under another run's or
 * pane's name is not this run's. Fails when the run was collected, is another pane's, or is unknown.
 */
const heldRunOf = Effect.fn("run_shell_command.heldRunOf")(function*(runId: string, paneId: PaneId) {
  const known = yield* (yield* ShellRuns).lookup(runId)
  const head = known === undefined || known._tag === "Pending" ? undefined : yield* headOfRun(paneId, runId)
  const read = head === undefined ? undefined : readRecord(head.runRecord)
  if (read?._tag === "Undecodable") return yield* undecodableRecord(runId, paneId, read.reason)
  const recorded = read?._tag === "Decoded" && read.record.run.id === runId && read.record.run.paneId === paneId
    ? read.record.run
    : undefined
  const held = recorded === undefined ? known : { _tag: "Pending" as const, run: recorded }
  if (held?._tag === "Pending" && held.run.paneId === paneId) {
    return { held: held.run, seen: head === undefined || read === undefined ? undefined : { head, read } }
  }
  if (held?._tag === "Collected" || markOf(runId, head?.collected ?? "") !== undefined) {
    return yield* collectedElsewhere({ id: runId, paneId }, head?.collected ?? "")
  }
  const detail = held?._tag === "Pending"
    ? `run ${runId} belongs to pane ${held.run.paneId}, not ${paneId}`
    : `run ${runId} is not recorded on pane ${paneId} (run IDs come from timed-out, ` +
      "blocked or cancelled results; a collected run's record is gone)"
  return yield* new ArgumentProblem({ detail: `resume: ${detail}` })
})

/**
 * A task's resume goes on only for a run whose record holds that task (the task ID's nonce): a
 * guessed or stale ID learns nothing of the run. With no record left (collected), nothing is told
 * of a task, and the resume says what became of the run, as any resume does.
 */
const taskHeld = Effect.fn("run_shell_command.taskHeld")(function*(
  runId: string,
  paneId: PaneId,
  task: RecordedTask,
  found: (task: RecordedTask | undefined) => void
) {
  const head = yield* headOfRun(paneId, runId)
  const read = readRecord(head.runRecord)
  const recorded = read._tag === "Decoded" && read.record.run.id === runId && read.record.run.paneId === paneId
    ? read.record.task
    : undefined
  const held = recorded !== undefined && sameNonce(recorded.nonce, task.nonce)
  found(held ? recorded : undefined)
  if (!held && read._tag !== "Absent") {
    return yield* new ArgumentProblem({ detail: `resume: run ${runId} on ${paneId} follows no such task` })
  }
})

/** What a resume types first: an answer's text, a key, or the interrupt's C-c; nothing otherwise. */
const answerOf = (input: typeof RunInput.Type): Answer | undefined =>
  input.answer !== undefined
    ? { _tag: "Text", text: input.answer, enter: input.enter !== false }
    : input.answer_key !== undefined
    ? { _tag: "Key", key: input.answer_key }
    : input.interrupt === true
    ? { _tag: "Key", key: "C-c" }
    : undefined

/** A run's turn on its pane: the run, how it came out, and an earlier run it reported. */
interface Turn {
  readonly run: { readonly id: string; readonly shell: string }
  readonly outcome: RunOutcome
  readonly earlier: ReadonlyArray<EarlierRun>
}

/** The call's result from the run's outcome. */
const resultOf = Effect.fn("run_shell_command.resultOf")(function*(
  input: typeof RunInput.Type,
  turn: Turn,
  started: number,
  timeout: number,
  limits: { readonly maxLines: number; readonly maxBytes: number }
) {
  const { run, outcome, earlier } = turn
  const finished = yield* Clock.currentTimeMillis
  const attach = attachCommandFor((yield* SocketPin).resolvedPath)
  const bounded = tailBound(outcome.output.lines, limits.maxLines, limits.maxBytes)
  return {
    pane_id: input.pane_id,
    exit_status: outcome._tag === "Finished" ? outcome.output.status ?? null : null,
    ...(outcome._tag === "ShellExited" ? { shell_exited: { exit_status: outcome.status } } : {}),
    ...(outcome._tag === "ShellReplaced" ? { shell_replaced: { program: outcome.program } } : {}),
    ...(outcome._tag === "Interrupted" ? { interrupted: true as const } : {}),
    timed_out: outcome._tag === "TimedOut",
    ...(outcome._tag === "Blocked"
      ? { blocked_by: { program: outcome.by, kind: outcome.kind, next_step: nextStep(outcome, attach) } }
      : {}),
    ...(["Finished", "ShellExited", "ShellReplaced", "Interrupted"].includes(outcome._tag)
      ? {}
      : { run_id: run.id }),
    ...(outcome._tag === "TimedOut" ? yield* watchCommandOf(run.id, input.pane_id) : {}),
    elapsed_seconds: Math.round(finished - started) / 1000,
    ...reportedTimeout(input.timeout, timeout),
    output: bounded.lines.join("\n"),
    output_from: outcome.output.continued ? "previous_answer" as const : "start" as const,
    ...firstLineField(outcome.output, bounded),
    output_start_lost: outcome.output.startLost,
    ...(outcome.output.screen.length === 0 ? {} : { output_is_screen: outcome.output.screen }),
    output_start_unknown: outcome.output.startUnknown,
    truncated_lines: bounded.truncatedLines + outcome.output.droppedLines,
    truncated_bytes: bounded.truncatedBytes + outcome.output.droppedBytes,
    ...(outcome.output.countPartial ? { truncated_at_least: true } : {}),
    shell: run.shell,
    ...(earlier.length === 0 ? {} : { earlier_run: earlier.at(-1)! })
  }
})

export const run_shell_command = defineTool(manifest.run_shell_command, {
  description: "Runs it in the pane's shell at its prompt; returns its exit status and output. A subshell " +
    "(cd, export do not persist) unless in_shell; copy mode or a program at the keyboard is refused. On " +
    "timeout (timed_out, run_id, output so far) it runs on: resume with run_id for its status (not `echo $?`) " +
    "and newer output; for a run of minutes, give watch_command to your host's background runner instead of " +
    "resuming in a loop. A program waiting for the keyboard returns in ~1 s (blocked_by, run_id): answer it by " +
    "resume with answer; stop a run with resume and interrupt. Never type a secret you were not given. " +
    "Fields appear only when they say something: " +
    "output_from previous_answer (only what is new since the last answer), output_start_lost (the start " +
    "scrolled out of history), truncated_lines/bytes (dropped from the start for max_lines/max_bytes; lines " +
    "lost past history are not counted), output_is_screen (the screen as drawn, not the stream).",
  input: RunInput,
  output: Schema.Struct({
    pane_id: idVariable("pane_id"),
    exit_status: Schema.NullOr(Schema.Int).annotate({
      description: "the command's exit status; null when it timed out, is blocked, was interrupted or ended or " +
        "replaced the shell"
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
    shell_replaced: Schema.optionalKey(
      Schema.Struct({
        program: Schema.String.annotate({ description: "the command name the pane's process runs now" })
      }).annotate({
        description: "present when the command replaced the pane's shell (exec under in_shell): its status is " +
          "unknown and the pane is free; a shell takes the next command, another program is refused (send_keys " +
          "types into it; respawn_pane starts a new shell)"
      })
    ),
    timed_out: usually(
      Schema.Boolean.annotate({
        description: "true: the timeout passed first; the command keeps running (see run_id)"
      }),
      false,
      "it did not time out"
    ),
    blocked_by: Schema.optionalKey(
      Schema.Struct({
        program: Schema.String.annotate({ description: "the command name of the program holding the keyboard" }),
        kind: Schema.Literals(blockKinds).annotate({
          description: "full-screen, line-editor (a REPL or a prompt with line editing), pager, prompt, stdin (a " +
            "read of standard input from the terminal) or secret (echo off: a password or passphrase is asked)"
        }),
        next_step: Schema.String.annotate({ description: "what to do about it" })
      }).annotate({
        description: "present when a program waits for the keyboard; answer or quit it with resume and answer " +
          "or answer_key"
      })
    ),
    interrupted: Schema.optionalKey(
      Schema.Literal(true).annotate({
        description: "present when this call's interrupt (C-c) ended the run: exit_status is null, output is " +
          "what it printed"
      })
    ),
    watch_command: Schema.optionalKey(
      Schema.String.annotate({
        description: "present when timed out: a shell command line that waits until the run ends, blocks or " +
          "its pane goes, prints one line and exits (libtmux-mcp wait; it types and collects nothing)"
      })
    ),
    run_id: Schema.optionalKey(
      Schema.String.annotate({
        description: "present when the run is not finished: pass it as resume to wait for it again"
      })
    ),
    elapsed_seconds: Schema.Finite.annotate({
      description:
        "seconds since the call began, including waiting for the shell's prompt and for other calls on the pane"
    }),
    effective_timeout: effectiveTimeoutField,
    output: Schema.String.annotate({
      description: "the command's output as the terminal shows it (tabs as spaces, trailing spaces kept, no " +
        "final newline), with any notice the shell prints there (a background job's Done); see output_from"
    }),
    output_from: usually(
      Schema.Literals(["start", "previous_answer"]).annotate({
        description: "previous_answer: only what came after the output the previous answer for this run " +
          "returned (whole_output, before the run's final answer, gives it all); see output_first_line"
      }),
      "start",
      "the output from the run's start"
    ),
    output_first_line: Schema.optionalKey(
      Schema.Literals(["continues", "repeated"]).annotate({
        description: "present when output_from is previous_answer, that answer ended within a row (a prompt, a " +
          "partial line) and nothing before output was left out: continues, output's first line is the rest of " +
          "that row (append it to that answer's last line, no newline between); repeated, cells of that row " +
          "before where that answer ended were rewritten since (a line redrawn after a carriage return), so its " +
          "line comes again whole (it replaces that answer's last line)"
      })
    ),
    output_start_lost: usually(
      Schema.Boolean.annotate({
        description: "true when the output outgrew the pane's history and its beginning is gone; lines past the " +
          "history are gone uncounted (truncated_lines does not include them)"
      }),
      false,
      "the output starts at the run's start (or the previous answer's end)"
    ),
    output_is_screen: Schema.optionalKey(
      Schema.Array(Schema.Literals(["pager", "full-screen", "alternate-screen", "clear"])).annotate({
        description: "present when output is what the screen showed, not what the command wrote, and why: a " +
          "pager or full-screen program drew it, or the history was cleared. Its absence does not prove the output " +
          "is the stream (carriage-return redraws, for one, are not detected)"
      })
    ),
    output_start_unknown: usually(
      Schema.Boolean.annotate({
        description: "true when where the output begins could not be found (the typed line was redrawn over and " +
          "the terminal echoed it): output is then empty rather than risk returning older rows"
      }),
      false,
      "where the output begins was found"
    ),
    ...truncationFields,
    truncated_lines: usually(
      Schema.Int.annotate({
        description: "lines the output had, read back from the pane, that were dropped from its start to respect " +
          "max_lines/max_bytes; lines already gone past the history are not counted"
      }),
      0,
      "none"
    ),
    truncated_at_least: Schema.optionalKey(Schema.Boolean.annotate({
      description: "present when counting the truncated lines and bytes stopped early (at the timeout, or as " +
        "the history was trimmed under a run still printing): there are more"
    })),
    shell: Schema.String.annotate({ description: "the shell the command ran in" }),
    earlier_run: Schema.optionalKey(
      Schema.Struct({
        run_id: Schema.String.annotate({ description: "the run typed earlier in this pane" }),
        exit_status: Schema.NullOr(Schema.Int).annotate({
          description: "its exit status; null when it never reported one (interrupted, as by C-c)"
        })
      }).annotate({
        description: "present when an earlier run of this pane had ended without being collected (it timed " +
          "out or was cancelled): its outcome, reported once"
      })
    )
  }),
  run: (input) =>
    Effect.gen(function*() {
      const problem = argumentProblem(input)
      if (problem !== undefined) return yield* new ArgumentProblem({ detail: problem })
      const { config } = yield* Config
      const runs = yield* ShellRuns
      const ticket = yield* TaskCall
      const timeout = yield* effectiveTimeout(input.timeout)
      const started = yield* Clock.currentTimeMillis
      const deadline = started + timeout * 1000
      if (input.resume !== undefined && ticket.task !== undefined) {
        yield* taskHeld(input.resume, input.pane_id, ticket.task, ticket.found)
      }
      const { held, seen } = input.resume === undefined
        ? { held: undefined, seen: undefined }
        : yield* heldRunOf(input.resume, input.pane_id)
      const limits = {
        maxLines: input.max_lines ?? outputLimits.maxLines,
        maxBytes: input.max_bytes ?? outputLimits.maxBytes,
        // Counting what a very long output left out may take seconds: the call keeps its timeout.
        countUntil: deadline + 1000,
        whole: input.whole_output === true
      }
      const answer = answerOf(input)
      // Progress names the run as soon as it has an ID: a hub whose link drops can still point at it.
      let named: string | undefined = held?.id
      const typing = yield* Deferred.make<void>()
      const label = () => `${named === undefined ? "running" : `run ${named}`} in ${input.pane_id}`
      const work = held !== undefined
        ? Effect.map(
          Effect.flatMap(
            answer === undefined ? Effect.succeed(undefined) : answerRun(held, answer),
            // Nothing typed since the head was read here: the resume waits on that read.
            (answered) =>
              resumeRun(
                held,
                deadline,
                limits,
                answered?.interrupted === true,
                answered === undefined ? seen : undefined
              )
          ),
          (outcome) => ({ run: held, outcome, earlier: [] })
        )
        : startRun({
          paneId: input.pane_id,
          command: input.command!,
          inShell: input.in_shell === true,
          suppressHistory: input.suppress_history ?? config.suppressHistory,
          deadline,
          limits,
          task: ticket.task,
          // A new run a task will follow is held, once typed, only up to the task's threshold.
          holdMs: ticket.threshold === undefined ? undefined : ticket.threshold * 1000,
          named: (id) =>
            Effect.suspend(() => {
              named = id
              return Deferred.succeed(typing, undefined)
            })
        })
      const turn = yield* withProgress(
        timeout,
        label,
        runs.exclusive(input.pane_id, deadline - started, work),
        named === undefined ? Deferred.await(typing) : Effect.void,
        () => named === undefined ? undefined : { [runIdMetaKey]: named }
      )
      if (Option.isNone(turn)) {
        return yield* new PaneNotReady({
          pane: input.pane_id,
          reason: "contended",
          detail: "other run_shell_command calls on this pane held it for the whole timeout; nothing was typed",
          remedy: "call again (it is safe), or use another pane for parallel work"
        })
      }
      const { run, outcome } = turn.value as Turn
      // A new run a task follows, still going or blocked: the task is made from it.
      if (input.command !== undefined && ["TimedOut", "Blocked"].includes(outcome._tag)) ticket.attached(run.id)
      return yield* resultOf(input, turn.value as Turn, started, timeout, limits)
    }),
  hub: {
    // Security: a command line a remote host composed is never passed on for the agent's machine to
    // run; the hub builds the watch command from its own host table.
    answer: ({ watch_command, ...answer }, hub) => {
      const watch = hub.remoteWatchCommand === undefined || watch_command === undefined
        ? watch_command
        : hub.remoteWatchCommand(String(answer.run_id), String(answer.pane_id))
      return Effect.succeed(watch === undefined ? answer : { ...answer, watch_command: watch })
    }
  }
})
