/**
 * The one failure of startup: a `StartupError` whose `reason` says which kind of problem stopped
 * it, so an embedding host can tell them apart (`Effect.catchReason("StartupError", "LeaseHeld", ...)`).
 * Every reason's message names what was wrong and what is valid. Startup stops with it before any
 * tmux server is touched.
 */
import * as Schema from "effect/Schema"

/** A variable or flag has a value that is not valid, or is no longer read. @category errors */
export class SettingInvalid extends Schema.TaggedError<SettingInvalid>()("SettingInvalid", {
  /** The variable (or flag) at fault. */
  setting: Schema.String,
  detail: Schema.String
}) {
  override get message() {
    return this.detail
  }
}

/** The tmux binary is missing, does not run, is not tmux, or is older than 3.2. @category errors */
export class TmuxUnusable extends Schema.TaggedError<TmuxUnusable>()("TmuxUnusable", {
  bin: Schema.String,
  detail: Schema.String
}) {
  override get message() {
    return this.detail
  }
}

/** Something already at the socket path (or its folder) that tmux would destroy or cannot use. @category errors */
export class SocketPathUnsafe extends Schema.TaggedError<SocketPathUnsafe>()("SocketPathUnsafe", {
  path: Schema.String,
  detail: Schema.String
}) {
  override get message() {
    return this.detail
  }
}

/** The pinned socket could not be probed (a hung server, a socket tmux cannot connect to). @category errors */
export class SocketUnreachable extends Schema.TaggedError<SocketUnreachable>()("SocketUnreachable", {
  socket: Schema.String,
  detail: Schema.String
}) {
  override get message() {
    return `cannot probe tmux socket ${this.socket}: ${this.detail}`
  }
}

/** `LIBTMUX_ADOPT=refuse` and a server of unknown provenance is on the socket. @category errors */
export class AdoptionRefused extends Schema.TaggedError<AdoptionRefused>()("AdoptionRefused", {
  socket: Schema.String
}) {
  override get message() {
    return `a tmux server is already running on socket ${this.socket} ` +
      "and it does not record that libtmux-mcp started it; " +
      "LIBTMUX_ADOPT=refuse stops here: stop that server (tmux " +
      "kill-server), choose another socket, or set LIBTMUX_ADOPT=adopt"
  }
}

/** `LIBTMUX_LEASE=exclusive` and another instance holds the lease. @category errors */
export class LeaseHeld extends Schema.TaggedError<LeaseHeld>()("LeaseHeld", {
  socketPath: Schema.String,
  holder: Schema.String
}) {
  override get message() {
    return `another libtmux-mcp instance holds the lease on ${this.socketPath} (${this.holder}); ` +
      "LIBTMUX_LEASE=exclusive stops here: stop it, use another socket, or set LIBTMUX_LEASE=shared"
  }
}

/** `LIBTMUX_LEASE=exclusive` and no lease can be taken here at all. @category errors */
export class LeaseUnavailable extends Schema.TaggedError<LeaseUnavailable>()("LeaseUnavailable", {
  detail: Schema.String
}) {
  override get message() {
    return `LIBTMUX_LEASE=exclusive needs a lease, which is unavailable here (${this.detail}); set LIBTMUX_LEASE=shared`
  }
}

/** The audit log named by `LIBTMUX_AUDIT_LOG` cannot be used. @category errors */
export class AuditLogUnusable extends Schema.TaggedError<AuditLogUnusable>()("AuditLogUnusable", {
  path: Schema.String,
  detail: Schema.String
}) {
  override get message() {
    return `LIBTMUX_AUDIT_LOG ${this.path} cannot be used for audit records: ${this.detail}`
  }
}

/** The recording folder named by `LIBTMUX_RECORD` cannot be used. @category errors */
export class RecordFolderUnusable extends Schema.TaggedError<RecordFolderUnusable>()("RecordFolderUnusable", {
  path: Schema.String,
  detail: Schema.String
}) {
  override get message() {
    return `LIBTMUX_RECORD ${this.path} cannot be used for recordings: ${this.detail}`
  }
}

/** Why startup stopped. @category models */
export const StartupReason = Schema.Union([
  SettingInvalid,
  TmuxUnusable,
  SocketPathUnsafe,
  SocketUnreachable,
  AdoptionRefused,
  LeaseHeld,
  LeaseUnavailable,
  AuditLogUnusable,
  RecordFolderUnusable
])

/** Why startup stopped. @category models */
export type StartupReason = typeof StartupReason.Type

/** A startup failure; its `reason` is the kind, its message the reason's. @category errors */
export class StartupError extends Schema.TaggedError<StartupError>()("StartupError", {
  reason: StartupReason
}) {
  override get message() {
    return this.reason.message
  }
}

/** Wraps a reason as the startup failure. @category constructors */
export const startupError = (reason: StartupReason): StartupError => new StartupError({ reason })

/** A setting's value is not valid: the message names the valid set. @category constructors */
export const settingInvalid = (setting: string, detail: string): StartupError =>
  startupError(new SettingInvalid({ setting, detail }))
