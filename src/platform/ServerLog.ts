/**
 * The live log (see services/ServerLog.ts): lines to the process's stderr, and to the MCP client
 * once it listens; the lines logged before it listened (startup's ready line and warnings) are kept
 * for it, up to a bound.
 */
import type { LogLevel, LogListener, ServerLog } from "../services/ServerLog.ts"

const backlogLimit = 50

/** A log of its own: its backlog and listener belong to it, not to the module. @category constructors */
export const makeServerLog = (): ServerLog["Service"] => {
  const backlog: Array<readonly [LogLevel, string]> = []
  let listener: LogListener | undefined
  return {
    line: (level, text, write = (line) => process.stderr.write(line)) => {
      write(`${text}\n`)
      if (listener !== undefined) listener(level, text)
      else if (backlog.length < backlogLimit) backlog.push([level, text])
    },
    listen: (listen) => {
      listener = listen
      for (const [level, text] of backlog.splice(0)) listen(level, text)
    }
  }
}
