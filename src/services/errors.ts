/**
 * The typed failures a tool call can end in. Each is a flat `<Subject><Condition>` class whose
 * `message` says what was wrong and what is valid; the registry turns it into an `isError`
 * result with the tag in `_meta`. Messages never echo command-bearing input.
 */
import * as Data from "effect/Data"
import * as Schema from "effect/Schema"
import { type TmuxRefusal, tmuxRefusal } from "../domain/tmuxRefusals.ts"
import { AuditUnavailable } from "./Audit.ts"
import { RecordingUnavailable } from "./Recorder.ts"
import { PatternInvalid, PatternTooCostly } from "./Regex.ts"

interface Missing {
  readonly target: string
  readonly existing: ReadonlyArray<string>
  readonly socket: string
  readonly serverRunning: boolean
}

const notFound = (kind: string, missing: Missing): string =>
  !missing.serverRunning
    ? `${kind} ${missing.target} not found: no tmux server is running ` +
      `on socket ${missing.socket}; create_session starts one`
    : `${kind} ${missing.target} not found; existing ${kind}s: ${
      missing.existing.length === 0 ? "none" : missing.existing.join(", ")
    }`

/** The input did not decode, or broke a rule the schema cannot express. @category errors */
export class InputInvalid extends Schema.TaggedError<InputInvalid>()("InputInvalid", {
  tool: Schema.String,
  detail: Schema.String
}) {
  override get message() {
    return `invalid arguments for ${this.tool}: ${this.detail}`
  }
}

/**
 * A tool's objection to its arguments that its schema cannot express. Tool programs raise it
 * without naming themselves; the registry names the tool and answers `InputInvalid`.
 * @category errors
 */
export class ArgumentProblem extends Data.TaggedError("ArgumentProblem")<{ readonly detail: string }> {}

/** What a tool program can fail with: a tool error, or an objection the registry names. @category errors */
export type ProgramError = ToolError | ArgumentProblem

/** No tmux server is running on the pinned socket. @category errors */
export class ServerNotRunning extends Schema.TaggedError<ServerNotRunning>()("ServerNotRunning", {
  socket: Schema.String
}) {
  override get message() {
    return `no tmux server is running on socket ${this.socket}; create_session starts one`
  }
}

/** A session target names no session. @category errors */
export class SessionNotFound extends Schema.TaggedError<SessionNotFound>()("SessionNotFound", {
  target: Schema.String,
  existing: Schema.Array(Schema.String),
  socket: Schema.String,
  serverRunning: Schema.Boolean
}) {
  override get message() {
    return notFound("session", this)
  }
}

/** A window target names no window. @category errors */
export class WindowNotFound extends Schema.TaggedError<WindowNotFound>()("WindowNotFound", {
  target: Schema.String,
  existing: Schema.Array(Schema.String),
  socket: Schema.String,
  serverRunning: Schema.Boolean
}) {
  override get message() {
    return notFound("window", this)
  }
}

/** A pane target names no pane. @category errors */
export class PaneNotFound extends Schema.TaggedError<PaneNotFound>()("PaneNotFound", {
  target: Schema.String,
  existing: Schema.Array(Schema.String),
  socket: Schema.String,
  serverRunning: Schema.Boolean
}) {
  override get message() {
    return notFound("pane", this)
  }
}

/** A session name is already taken. @category errors */
export class SessionExists extends Schema.TaggedError<SessionExists>()("SessionExists", {
  name: Schema.String
}) {
  override get message() {
    return `a session named ${JSON.stringify(this.name)} already exists; choose another session_name or omit it`
  }
}

/** A teardown would remove the pane this server runs in. @category errors */
export class SelfKillRefused extends Schema.TaggedError<SelfKillRefused>()("SelfKillRefused", {
  target: Schema.String,
  callerPane: Schema.String
}) {
  override get message() {
    return `refusing to kill ${this.target}: it contains pane ${this.callerPane}, where this MCP server runs; ` +
      `kill it from a shell if that is really intended`
  }
}

/**
 * An input tool would type into the pane this server runs in: under an inherited socket that is
 * the agent's own client, which input there could answer (a permission prompt). @category errors
 */
export class SelfInputRefused extends Schema.TaggedError<SelfInputRefused>()("SelfInputRefused", {
  tool: Schema.String,
  target: Schema.String,
  callerPane: Schema.String,
  /** The target is another pane of a window with synchronize-panes on, which holds the caller's pane. */
  synchronized: Schema.Boolean
}) {
  override get message() {
    return this.synchronized
      ? `refusing ${this.tool} into pane ${this.target}: synchronize-panes is on in its window, which holds pane ` +
        `${this.callerPane}, where this MCP server runs, so its keys would also reach this server's own client; ` +
        "nothing was sent. Turn synchronize-panes off there (set_synchronize_panes) or use a pane in another window"
      : `refusing ${this.tool} into pane ${this.target}: this MCP server runs in that pane, so the input would reach ` +
        "its own client (and could answer that client's prompts); nothing was sent. Use another pane"
  }
}

/** tmux ran and reported a failure. @category errors */
export class TmuxCommandFailed extends Schema.TaggedError<TmuxCommandFailed>()("TmuxCommandFailed", {
  command: Schema.String,
  exitCode: Schema.Int,
  stderr: Schema.String
}) {
  override get message() {
    return `tmux ${this.command} failed (exit ${this.exitCode}): ${this.stderr || "no message"}`
  }

  /** What tmux's message says (domain/tmuxRefusals.ts): what a caller branches on, never the text. */
  get refusal(): TmuxRefusal {
    return tmuxRefusal(this.stderr)
  }
}

/**
 * The pinned socket, its lock or its folder is within another user's reach, so no tmux client of
 * ours was started: the call connected to nothing. @category errors
 */
export class SocketUnsafe extends Schema.TaggedError<SocketUnsafe>()("SocketUnsafe", {
  path: Schema.String,
  detail: Schema.String
}) {
  override get message() {
    return `refused to run tmux: ${this.detail}`
  }
}

/** The tmux binary could not be started. @category errors */
export class TmuxNotFound extends Schema.TaggedError<TmuxNotFound>()("TmuxNotFound", {
  bin: Schema.String,
  reason: Schema.String
}) {
  override get message() {
    return `cannot run tmux binary ${
      JSON.stringify(this.bin)
    }: ${this.reason}; install tmux >= 3.2 or set LIBTMUX_TMUX_BIN`
  }
}

/** tmux did not answer in time. @category errors */
export class TmuxTimedOut extends Schema.TaggedError<TmuxTimedOut>()("TmuxTimedOut", {
  command: Schema.String,
  timeoutMs: Schema.Int
}) {
  override get message() {
    return `tmux ${this.command} did not answer within ${this.timeoutMs} ms; the tmux server may be wedged`
  }
}

/**
 * The connection to tmux closed, or did not answer in time, while a command that changes something
 * was in flight: whether it ran is not known, and it was not sent again. @category errors
 */
export class TmuxAnswerLost extends Schema.TaggedError<TmuxAnswerLost>()("TmuxAnswerLost", {
  command: Schema.String,
  reason: Schema.String
}) {
  override get message() {
    return `tmux ${this.command} got no answer (${this.reason}); it may or may not have acted and it was not ` +
      "run again: look (list_sessions, list_panes, capture_pane) before repeating it"
  }
}

/** tmux printed more than the caller set out to read; the command was stopped. @category errors */
export class TmuxOutputTooLarge extends Schema.TaggedError<TmuxOutputTooLarge>()("TmuxOutputTooLarge", {
  command: Schema.String,
  limitBytes: Schema.Int
}) {
  override get message() {
    return `tmux ${this.command} printed more than ${this.limitBytes} bytes and was stopped; ask for fewer rows`
  }
}

/**
 * Why a pane cannot take a command now, as data a host can match on (the message says it in words):
 * - `in-mode`: copy mode or another tmux mode would take the keys;
 * - `full-screen`: a program is up on the alternate screen;
 * - `processes-unseen`: the pane's processes cannot be seen from this server (another pid namespace);
 * - `not-a-shell`: the pane's process is not a shell the protocol drives;
 * - `keyboard-held`: a program in the foreground reads the terminal (a prompt, a pager, a REPL);
 * - `busy`: a command of the shell's own still runs in the foreground;
 * - `timed-out`: the shell was still starting or busy when the call's timeout ran out;
 * - `contended`: other runs or calls took the pane for the whole timeout;
 * - `run-held`: an earlier run still holds the pane (resume it);
 * - `changed`: the pane's process changed as the call was about to type;
 * - `option-invalid`: one of the protocol's pane options holds what no run wrote;
 * - `open-input`: an earlier run's incomplete input is still open in the shell (C-c did not cancel it).
 * Nothing was typed in any of them. @category models
 */
export const PaneNotReadyReason = Schema.Literals([
  "in-mode",
  "full-screen",
  "processes-unseen",
  "not-a-shell",
  "keyboard-held",
  "busy",
  "timed-out",
  "contended",
  "run-held",
  "changed",
  "option-invalid",
  "open-input"
])

/** The pane cannot take a command now; the message says what is in the way and how to clear it. @category errors */
export class PaneNotReady extends Schema.TaggedError<PaneNotReady>()("PaneNotReady", {
  pane: Schema.String,
  reason: PaneNotReadyReason,
  detail: Schema.String,
  remedy: Schema.String
}) {
  override get message() {
    return `pane ${this.pane} is not ready for a command: ${this.detail}; ${this.remedy}`
  }
}

/** The pane's process has exited (or the pane was respawned) under a read that depended on it. @category errors */
export class PaneGone extends Schema.TaggedError<PaneGone>()("PaneGone", {
  pane: Schema.String,
  reason: Schema.String
}) {
  override get message() {
    return `pane ${this.pane} ${this.reason}`
  }
}

/**
 * After run_shell_command typed its command, the shell went back to reading its terminal without
 * running it: the command was incomplete or did not parse. The open input was cancelled, or, when
 * C-c could not cancel it (`stillOpen`), the run keeps the pane. @category errors
 */
export class RunIncomplete extends Schema.TaggedError<RunIncomplete>()("RunIncomplete", {
  pane: Schema.String,
  shown: Schema.String,
  /** Set when C-c did not cancel the open input (the shell ignores SIGINT): the run keeps the pane. */
  stillOpen: Schema.optionalKey(Schema.Boolean)
}) {
  override get message() {
    if (this.stillOpen === true) {
      return `the shell in pane ${this.pane} still reads more of the command: it shows a continuation prompt, not ` +
        `its own, so the command is incomplete (an unclosed quote, bracket, block or here-document) and nothing of ` +
        `it ran. C-c did not cancel that open input (the shell ignores SIGINT, as after trap '' INT), so the run ` +
        `keeps the pane and nothing else is typed into it: respawn_pane starts a new shell in the pane (this shell's ` +
        `state is lost), or end the input with send_keys until the shell's prompt is back; then run the command ` +
        `again, fixed.${this.shown === "" ? "" : ` The pane showed:\n${this.shown}`}`
    }
    return `the shell in pane ${this.pane} did not start the command (its start mark never ran): it is incomplete ` +
      `(an unclosed quote, bracket, ` +
      `block or here-document) or did not parse. Nothing of it ran; its open input was cancelled with C-c, so the ` +
      `shell is back at its prompt. Fix the command and run it again.${
        this.shown === "" ? "" : ` The pane showed:\n${this.shown}`
      }`
  }
}

/** A run ended without its status report: something interrupted it before the trailer ran. @category errors */
export class RunUnreported extends Schema.TaggedError<RunUnreported>()("RunUnreported", {
  pane: Schema.String,
  runId: Schema.String,
  /** Set when the shell came back to its prompt on its own: then whether the command ran is not known. */
  shown: Schema.optionalKey(Schema.String),
  /**
   * The interrupted run's output as a resume returns it (after what the previous answer returned,
   * when `continued`; within max_lines/max_bytes), and the lines left out before it.
   */
  output: Schema.optionalKey(
    Schema.Struct({ text: Schema.String, truncatedLines: Schema.Int, continued: Schema.Boolean })
  )
}) {
  override get message() {
    if (this.shown !== undefined) {
      return `run ${this.runId} in pane ${this.pane} ended without reporting an exit status, and whether it ran ` +
        `cannot be told: the shell came back to its prompt without the status report. Either the command was ` +
        `incomplete (an unclosed quote, bracket, block or here-document: then nothing ran, and its open input was ` +
        `cancelled with C-c) or the status report could not reach tmux (the shell's TMUX changed: then it may have ` +
        `run). Look at the pane (capture_pane) before running it again.${
          this.shown === "" ? "" : ` The pane showed:\n${this.shown}`
        }`
    }
    return `run ${this.runId} in pane ${this.pane} ended without reporting an exit status: it was interrupted ` +
      `(C-c, for example, ends the rest of the typed line, including the part that reports the status). Its status ` +
      `is lost. The run is closed, and the pane's shell is at its prompt.${outputText(this.output)}`
  }
}

/** An interrupted run's output as its refusal says it. */
const outputText = (
  output: { readonly text: string; readonly truncatedLines: number; readonly continued: boolean } | undefined
): string => {
  if (output === undefined) return " Read its output with capture_pane."
  const since = output.continued ? " since the previous answer" : ""
  if (output.text === "") return ` It printed nothing${since}.`
  const cut = output.truncatedLines === 0
    ? ""
    : ` (its last lines within max_lines/max_bytes; ${output.truncatedLines} line${
      output.truncatedLines === 1 ? "" : "s"
    } before them left out)`
  return ` Its output${since}${cut}:\n${output.text}`
}

/**
 * After run_shell_command typed its command, waiting for it failed (the waiting tmux client was
 * lost or timed out, a read failed): the command may still run, so the run is held for `resume`.
 * @category errors
 */
export class RunWaitFailed extends Schema.TaggedError<RunWaitFailed>()("RunWaitFailed", {
  pane: Schema.String,
  runId: Schema.String,
  cause: Schema.String
}) {
  override get message() {
    return `run ${this.runId} was typed in pane ${this.pane}, but waiting for it failed: ${this.cause}. The command ` +
      `may still be running, or have finished: the run is held, so call run_shell_command with resume ` +
      `"${this.runId}" for its outcome (do not type it again)`
  }
}

/**
 * The run was collected before this call read it: by another call (a resume, or a later command
 * that reported it as its earlier_run), of this or another server process. Its result went to that
 * call's answer; nothing can answer it again. `collected` says by whom, when and how it ended, as the
 * pane's mark of it says (programs/runReadBack.ts), or why that is no longer known.
 * @category errors
 */
export class RunCollected extends Schema.TaggedError<RunCollected>()("RunCollected", {
  pane: Schema.String,
  runId: Schema.String,
  collected: Schema.String
}) {
  override get message() {
    return `run ${this.runId} in pane ${this.pane} was already collected ${this.collected}. It cannot be resumed ` +
      "or read again (do not type it again to get its output unless running it twice is harmless): capture_pane " +
      "shows what the pane holds now, and run_shell_command with a command starts a new run"
  }
}

/** A capture_since cursor that is malformed, forged, from another process or for another pane. @category errors */
export class CursorInvalid extends Schema.TaggedError<CursorInvalid>()("CursorInvalid", {
  reason: Schema.String
}) {
  override get message() {
    return `invalid capture_since cursor: ${this.reason}; call capture_since without a cursor to start again`
  }
}

/** A call named a host that was not declared at startup. @category errors */
export class HostUnknown extends Schema.TaggedError<HostUnknown>()("HostUnknown", {
  host: Schema.String,
  known: Schema.Array(Schema.String)
}) {
  override get message() {
    return `host ${JSON.stringify(this.host)} is not one of this server's hosts; valid hosts: ${this.known.join(", ")}`
  }
}

/** The host's server could not be reached (ssh failed, or did not connect in time); nothing ran. @category errors */
export class HostUnreachable extends Schema.TaggedError<HostUnreachable>()("HostUnreachable", {
  host: Schema.String,
  detail: Schema.String
}) {
  override get message() {
    return `host ${this.host} is unreachable: ${this.detail}; nothing was run there. Check that ` +
      `ssh reaches it (ssh -T with BatchMode: a key or agent, no password prompt) and that libtmux-mcp runs ` +
      "there; other hosts keep serving"
  }
}

/**
 * A read got no answer from the host: its session ended during the call (and again when it was sent
 * once more), or the host did not answer in time. A read changes nothing there. @category errors
 */
export class HostLost extends Schema.TaggedError<HostLost>()("HostLost", {
  host: Schema.String,
  detail: Schema.String
}) {
  override get message() {
    return `host ${this.host} gave no answer (${this.detail}); the call only reads, so nothing there changed: ` +
      "call it again (the next call reconnects)"
  }
}

/**
 * The session to the host dropped (or the host did not answer in time) while a call that may act was
 * in flight: whether it acted is not known, and it is never sent again. A `wait_for_text` lost so is
 * this too: it acted on nothing, but what it waited for may have come and gone. @category errors
 */
export class OutcomeUnknown extends Schema.TaggedError<OutcomeUnknown>()("OutcomeUnknown", {
  host: Schema.String,
  tool: Schema.String,
  detail: Schema.String,
  /** The run the call started or resumed, when the host named it before the link went. */
  run_id: Schema.optionalKey(Schema.String)
}) {
  override get message() {
    if (this.tool === "wait_for_text") {
      return `wait_for_text on host ${this.host} ended without an answer: ${this.detail}; it was not sent again ` +
        "(output during the reconnect would be missed, and its cursor belongs to the server process that " +
        `ended). Capture the pane (capture_pane with host ${this.host}) for what came meanwhile, then wait again`
    }
    const look = this.run_id !== undefined
      ? `call run_shell_command with host ${this.host}, the same pane_id and resume ${this.run_id} for the run's ` +
        "status (its record is kept on the host; a run not recorded there was never typed)"
      : this.tool === "run_shell_command"
      ? `look at the pane (capture_pane with host ${this.host}) for whether the command was typed`
      : `look (list_sessions, list_panes, capture_pane with host ${this.host}) for whether it acted`
    return `the outcome of ${this.tool} on host ${this.host} is unknown: ${this.detail}; it may or may not have ` +
      `acted there and it was not sent again. Before repeating it, ${look}; the next call reconnects`
  }
}

/**
 * The host does not offer the tool: its server (`version`) is older or selects other tools, or the
 * hub's --host-toolsets narrows it (`toolsets`, with the `hosts` that do offer it; nothing was sent).
 * @category errors
 */
export class HostToolMissing extends Schema.TaggedError<HostToolMissing>()("HostToolMissing", {
  host: Schema.String,
  tool: Schema.String,
  version: Schema.optionalKey(Schema.String),
  toolsets: Schema.optionalKey(Schema.Array(Schema.String)),
  hosts: Schema.optionalKey(Schema.Array(Schema.String))
}) {
  override get message() {
    return this.toolsets === undefined
      ? `host ${this.host} (libtmux-mcp ${this.version ?? "unknown"}) does not offer ${this.tool}: its server is ` +
        "older or selects other tools; update it there or call another tool"
      : `host ${this.host} offers only the ${this.toolsets.join(", ") || "no"} toolset(s) (--host-toolsets), ` +
        `not ${this.tool}, so nothing was sent there; ${
          this.hosts === undefined || this.hosts.length === 0
            ? "no host offers it"
            : `hosts that offer it: ${this.hosts.join(", ")}`
        }`
  }
}

/** The host's server answered the call with an error; its own text and tag, named with the host. @category errors */
export class HostCallFailed extends Schema.TaggedError<HostCallFailed>()("HostCallFailed", {
  host: Schema.String,
  tag: Schema.String,
  text: Schema.String
}) {
  override get message() {
    return `on host ${this.host}: ${this.text}`
  }
}

/**
 * The hub did not pass on a host's answer: it was over the size the hub reads of one message, or it
 * was not a result of the tool (not a tool result, or not fitting the tool's output schema). The call
 * ran there; only its answer is lost. @category errors
 */
export class HostAnswerRefused extends Schema.TaggedError<HostAnswerRefused>()("HostAnswerRefused", {
  host: Schema.String,
  tool: Schema.String,
  detail: Schema.String
}) {
  override get message() {
    return `host ${this.host}'s answer to ${this.tool} was refused, not passed on: ${this.detail}. The call ran ` +
      `there: an inspect tool changed nothing; any other may have acted, so look (list_sessions, list_panes, ` +
      `capture_pane with host ${this.host}) before repeating it`
  }
}

/**
 * Every failure a tool program may end in, as one Schema union: a tool's failure schema (toolkit.ts)
 * and `ToolError` are both this. A hub's own failures are `HubFailure`.
 * @category schemas
 */
export const ToolFailure = Schema.Union([
  InputInvalid,
  ServerNotRunning,
  SessionNotFound,
  WindowNotFound,
  PaneNotFound,
  SessionExists,
  SelfKillRefused,
  SelfInputRefused,
  TmuxCommandFailed,
  TmuxNotFound,
  TmuxTimedOut,
  TmuxAnswerLost,
  TmuxOutputTooLarge,
  SocketUnsafe,
  PaneNotReady,
  PaneGone,
  RunIncomplete,
  RunUnreported,
  RunWaitFailed,
  RunCollected,
  CursorInvalid,
  PatternInvalid,
  PatternTooCostly,
  AuditUnavailable,
  RecordingUnavailable
])

/** The `_meta` key carrying a failed call's error tag on the wire (a hub reads its host's there). */
export const errorMetaKey = "com.git-pull.libtmux-mcp/error"

/** Every failure a tool program may end in. @category errors */
export type ToolError = typeof ToolFailure.Type

/**
 * What a hub's call may end in besides its tool's failures: the host, its link or its answer failed
 * (src/hub/). Its own union: no tool program can fail with one.
 * @category schemas
 */
export const HubFailure = Schema.Union([
  HostUnknown,
  HostUnreachable,
  HostLost,
  OutcomeUnknown,
  HostToolMissing,
  HostCallFailed,
  HostAnswerRefused
])

/** A hub's own failure. @category errors */
export type HubError = typeof HubFailure.Type

/**
 * What a call may end in: its tool's failure, or, on a hub, the hub's (the toolkit's failure schema).
 * @category schemas
 */
export const CallFailure = Schema.Union([...ToolFailure.members, ...HubFailure.members])

/** What a call may end in. @category errors */
export type CallError = typeof CallFailure.Type

/** Failures of running tmux itself, shared by every authority service. @category errors */
export type TmuxError =
  | ServerNotRunning
  | TmuxCommandFailed
  | TmuxNotFound
  | TmuxTimedOut
  | TmuxAnswerLost
  | TmuxOutputTooLarge
  | SocketUnsafe
