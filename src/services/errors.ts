/**
 * The typed failures a tool call can end in. Each is a flat `<Subject><Condition>` class whose
 * `message` says what was wrong and what is valid; the registry turns it into an `isError`
 * result with the tag in `_meta`. Messages never echo command-bearing input.
 */
import * as Schema from "effect/Schema"

interface Missing {
  readonly target: string
  readonly existing: ReadonlyArray<string>
  readonly socket: string
  readonly serverRunning: boolean
}

const notFound = (kind: string, missing: Missing): string =>
  !missing.serverRunning
    ? `${kind} ${missing.target} not found: no tmux server is running on socket ${missing.socket}; create_session starts one`
    : `${kind} ${missing.target} not found; existing ${kind}s: ${missing.existing.length === 0 ? "none" : missing.existing.join(", ")}`

/** The input did not decode, or broke a rule the schema cannot express. @category errors */
export class InputInvalid extends Schema.TaggedError<InputInvalid>()("InputInvalid", {
  tool: Schema.String,
  detail: Schema.String
}) {
  override get message() {
    return `invalid arguments for ${this.tool}: ${this.detail}`
  }
}

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

/** tmux ran and reported a failure. @category errors */
export class TmuxCommandFailed extends Schema.TaggedError<TmuxCommandFailed>()("TmuxCommandFailed", {
  command: Schema.String,
  exitCode: Schema.Int,
  stderr: Schema.String
}) {
  override get message() {
    return `tmux ${this.command} failed (exit ${this.exitCode}): ${this.stderr || "no message"}`
  }
}

/** The tmux binary could not be started. @category errors */
export class TmuxNotFound extends Schema.TaggedError<TmuxNotFound>()("TmuxNotFound", {
  bin: Schema.String,
  reason: Schema.String
}) {
  override get message() {
    return `cannot run tmux binary ${JSON.stringify(this.bin)}: ${this.reason}; install tmux >= 3.2 or set LIBTMUX_TMUX_BIN`
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

/** Every failure a tool program may end in. @category errors */
export type ToolError =
  | InputInvalid
  | ServerNotRunning
  | SessionNotFound
  | WindowNotFound
  | PaneNotFound
  | SessionExists
  | SelfKillRefused
  | TmuxCommandFailed
  | TmuxNotFound
  | TmuxTimedOut

/** Failures of running tmux itself, shared by every authority service. @category errors */
export type TmuxError = ServerNotRunning | TmuxCommandFailed | TmuxNotFound | TmuxTimedOut
