/**
 * The server's human-readable log lines (the ready line, warnings, refused input, defects, the
 * audit's move to its fallback file): each goes to stderr and, once an MCP client asked for log
 * messages with `logging/setLevel`, to that client as `notifications/message` too. Audit records
 * are not log lines: they keep their own sink. A host that embeds the tools can send the lines
 * elsewhere with a layer of its own.
 */
import * as Context from "effect/Context"

/** MCP's log levels, least severe first (RFC 5424's). @category models */
export const logLevels = ["debug", "info", "notice", "warning", "error", "critical", "alert", "emergency"] as const

/** A log level. @category models */
export type LogLevel = typeof logLevels[number]

/** Where a client's copy of the lines goes. @category models */
export type LogListener = (level: LogLevel, line: string) => void

/** The log. @category services */
export class ServerLog extends Context.Service<ServerLog, {
  /**
   * Logs a line (without its newline): to stderr through `write` (by default the process's stderr
   * stream), and to the listening client. Synchronous, so code that must not wait can log.
   */
  readonly line: (level: LogLevel, text: string, write?: (text: string) => unknown) => void
  /** Sends the lines logged before (a bounded backlog), then every later one, to `listen`. */
  readonly listen: (listen: LogListener) => void
}>()("libtmux-mcp/services/ServerLog") {}

/** Whether a line at `level` passes a client's chosen `threshold`. */
export const atLeast = (level: LogLevel, threshold: LogLevel): boolean =>
  logLevels.indexOf(level) >= logLevels.indexOf(threshold)
