/**
 * The server's human-readable log lines (the ready line, warnings, refused input, defects, the
 * audit's move to its fallback file): each goes to stderr and, once an MCP client asked for log
 * messages with `logging/setLevel`, to that client as `notifications/message` too. Audit records
 * are not log lines: they keep their own sink.
 */

/** MCP's log levels, least severe first (RFC 5424's). @category models */
export const logLevels = ["debug", "info", "notice", "warning", "error", "critical", "alert", "emergency"] as const

/** A log level. @category models */
export type LogLevel = typeof logLevels[number]

type Listener = (level: LogLevel, line: string) => void

/** Lines logged before a client listened (startup's ready line and warnings), kept for it; bounded. */
const backlogLimit = 50
const backlog: Array<readonly [LogLevel, string]> = []
let listener: Listener | undefined

/** Logs a line (without its newline): to stderr through `write`, and to the listening client. */
export const logLine = (
  level: LogLevel,
  line: string,
  write: (text: string) => unknown = (text) => process.stderr.write(text)
): void => {
  write(`${line}\n`)
  if (listener !== undefined) listener(level, line)
  else if (backlog.length < backlogLimit) backlog.push([level, line])
}

/** Sends every later line, and the lines logged before, to `listen`. */
export const listenToLog = (listen: Listener): void => {
  listener = listen
  for (const [level, line] of backlog.splice(0)) listen(level, line)
}

/** Whether a line at `level` passes a client's chosen `threshold`. */
export const atLeast = (level: LogLevel, threshold: LogLevel): boolean =>
  logLevels.indexOf(level) >= logLevels.indexOf(threshold)
