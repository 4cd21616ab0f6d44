/** The words `--print-config` and a hub's flags put on a command line, checked. */
import * as Result from "effect/Result"
import { remoteShellProblem } from "./quote.ts"
import { settingInvalid, type StartupError } from "./StartupError.ts"

/**
 * A word for a command line: a path or name that no program takes for an option. One that goes
 * to the remote host is read by its login shell: every common one must read it as the same word
 * once quoted (no backslash, no control characters); a local one only has no control characters.
 */
export const pathWord = (flag: string, raw: string, remote = true): Result.Result<string, StartupError> => {
  const problem = raw === ""
    ? "it is empty"
    : raw.startsWith("-")
    ? "it starts with -"
    : remote
    ? remoteShellProblem(raw)
    // oxlint-disable-next-line no-control-regex -- control characters are what it refuses
    : (/[\u0000-\u001f\u007f]/u.test(raw) ? "a control character" : undefined)
  return problem === undefined ? Result.succeed(raw) : Result.fail(
    settingInvalid(
      flag,
      `${flag} ${JSON.stringify(raw)} is not valid: ${problem}; give a path (or a command name on the remote ` +
        "PATH) without backslashes or control characters"
    )
  )
}
