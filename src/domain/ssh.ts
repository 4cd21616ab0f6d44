/**
 * What the ssh client is given, shared by the entry `--print-config --ssh` prints (clientConfig.ts)
 * and by a remote server's `watch_command` (watchCommand.ts): the destination's grammar and the
 * options that keep a session from prompting or hanging on a dead link.
 */
import * as Result from "effect/Result"
import { remoteShellProblem } from "./quote.ts"
import { settingInvalid, type StartupError } from "./StartupError.ts"

/** A user and host as ssh and a remote shell take them, with nothing a shell or ssh would read as more. */
export const sshTarget = /^(?:([A-Za-z0-9._][A-Za-z0-9._-]*)@)?([A-Za-z0-9._][A-Za-z0-9._-]*)(?::(\d{1,5}))?$/u

/** `[user@]host[:port]`, split; `undefined` when it is not in that grammar or the port is out of range. */
export const parseSshTarget = (
  raw: string
): { readonly destination: string; readonly port: number | undefined } | undefined => {
  const match = sshTarget.exec(raw)
  const port = match?.[3] === undefined ? undefined : Number(match[3])
  if (match === null || (port !== undefined && (port < 1 || port > 65_535))) return undefined
  return { destination: match[1] === undefined ? match[2]! : `${match[1]}@${match[2]}`, port }
}

/** How ssh reaches a host. @category models */
export interface SshReach {
  /** `[user@]host`, as ssh takes it. */
  readonly destination: string
  readonly port: number | undefined
  /** The ssh client configuration file (`ssh -F`). */
  readonly sshConfig: string | undefined
}

/** A hub's timing of its links (domain/hostLink.ts): keep-alives, and how long a connect may take. @category models */
export interface SshLink {
  readonly aliveSeconds: number
  readonly connectSeconds: number
}

/** The exit code ssh gives when it cannot reach the host or the link is lost. */
export const sshLostCode = 255

/**
 * ssh's arguments up to the remote command: no TTY, batch mode (a password prompt would hang a
 * client or a background runner), keep-alives (a dead link ends ssh with 255 instead of hanging).
 */
export const sshArgs = (host: SshReach, link?: SshLink): Array<string> => [
  "-T",
  "-o",
  "BatchMode=yes",
  "-o",
  `ServerAliveInterval=${link?.aliveSeconds ?? 15}`,
  "-o",
  "ServerAliveCountMax=3",
  ...(link === undefined ? [] : ["-o", `ConnectTimeout=${link.connectSeconds}`]),
  ...(host.sshConfig === undefined ? [] : ["-F", host.sshConfig]),
  ...(host.port === undefined ? [] : ["-p", String(host.port)]),
  "--",
  host.destination
]

/** Why a word cannot go on the agent's command line, or `undefined`: as `remoteShellProblem`, and no leading `-`. */
const wordProblem = (word: string): string | undefined =>
  word === ""
    ? "it is empty"
    : word.startsWith("-")
    ? "it starts with -, which ssh would read as an option"
    : remoteShellProblem(word)

/**
 * `LIBTMUX_WATCH_SSH` and `LIBTMUX_WATCH_SSH_CONFIG`: how the agent's machine reaches this one, for
 * a `watch_command` that runs `wait` here through ssh. Security: the words go on a command line
 * that the agent's shell reads, so each is held to the grammar every common shell reads alike.
 */
export const parseWatchSsh = (
  raw: string | undefined,
  config: string | undefined
): Result.Result<SshReach | undefined, StartupError> => {
  if (raw === undefined) {
    return config === undefined ? Result.succeed(undefined) : Result.fail(
      settingInvalid(
        "LIBTMUX_WATCH_SSH_CONFIG",
        "LIBTMUX_WATCH_SSH_CONFIG goes with LIBTMUX_WATCH_SSH [user@]host[:port], the host it reaches"
      )
    )
  }
  const problem = wordProblem(raw)
  const target = problem === undefined ? parseSshTarget(raw) : undefined
  if (target === undefined) {
    return Result.fail(
      settingInvalid(
        "LIBTMUX_WATCH_SSH",
        `LIBTMUX_WATCH_SSH ${JSON.stringify(raw)} is not valid${problem === undefined ? "" : `: ${problem}`}; ` +
          "use [user@]host[:port] (letters, digits, . _ -; port 1-65535), as the agent's machine reaches this one"
      )
    )
  }
  if (config !== undefined) {
    const bad = wordProblem(config) ??
      (config.startsWith("/") || config.startsWith("~/") ? undefined : "it is relative")
    if (bad !== undefined) {
      return Result.fail(
        settingInvalid(
          "LIBTMUX_WATCH_SSH_CONFIG",
          `LIBTMUX_WATCH_SSH_CONFIG ${JSON.stringify(config)} is not valid: ${bad}; give the absolute path of the ` +
            "agent machine's ssh client configuration file (ssh -F), without backslashes or control characters"
        )
      )
    }
  }
  return Result.succeed({ ...target, sshConfig: config })
}
