/** The ceiling for waits (`LIBTMUX_MCP_WAIT_MAX_SECONDS`), read by the server and by `--print-config`. */
import * as Result from "effect/Result"
import { settingInvalid, type StartupError } from "./StartupError.ts"

/** The ceiling when none is configured. */
export const defaultWaitMaxSeconds = 30

/**
 * The highest ceiling: a wait with the read-back after it must end before 120 s, where Claude Code
 * moves a call to the background and drops its answer.
 */
export const highestWaitMaxSeconds = 110

/** Parses the ceiling: a number of seconds from 1 to 110. */
export const parseWaitMax = (raw: string | undefined): Result.Result<number, StartupError> => {
  if (raw === undefined) return Result.succeed(defaultWaitMaxSeconds)
  const value = raw.trim() === "" ? Number.NaN : Number(raw)
  return Number.isFinite(value) && value >= 1 && value <= highestWaitMaxSeconds
    ? Result.succeed(value)
    : Result.fail(
      settingInvalid(
        "LIBTMUX_MCP_WAIT_MAX_SECONDS",
        `LIBTMUX_MCP_WAIT_MAX_SECONDS ${JSON.stringify(raw)} is not valid; use a number of seconds from 1 to ` +
          `${highestWaitMaxSeconds} (a client may drop the answer of a call that takes 120 s or more: ` +
          "Claude Code moves it to the background)"
      )
    )
}
