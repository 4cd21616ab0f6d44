/**
 * `libtmux-mcp wait RUN_ID --pane %N`: its arguments, checked; the socket and the tmux binary
 * default to the server's settings.
 */
import * as Config from "effect/Config"
import type * as ConfigProvider from "effect/ConfigProvider"
import * as Effect from "effect/Effect"
import { isPaneId, type PaneId } from "./ids.ts"
import { runIdPattern } from "./protocolNames.ts"
import { parseTmuxBin } from "./settingRules.ts"
import { textOf, unreadable } from "./settings.ts"
import { defaultSocket, parseSocketSelector, type SocketSelector } from "./socket.ts"
import { settingInvalid, type StartupError } from "./StartupError.ts"

/** `libtmux-mcp wait RUN_ID --pane %N`: wait for a run from outside the server (src/wait.ts). @category models */
export interface WaitRequest {
  readonly kind: "wait"
  readonly runId: string
  readonly paneId: PaneId
  readonly socket: SocketSelector
  readonly tmuxBin: string
  /** How long to wait at most, in seconds; undefined waits until the run ends. */
  readonly timeoutSeconds: number | undefined
}

/** The longest `--timeout` of `wait`, in seconds: a day. */
const waitTimeoutLimit = 86_400

const waitUsage = "usage: libtmux-mcp wait RUN_ID --pane %N [--socket SOCKET] [--timeout SECONDS] [--tmux-bin BIN]"

/** The `wait` subcommand's arguments; the socket and the tmux binary default to the server's settings. */
export const parseWait = (
  source: ConfigProvider.ConfigProvider,
  argv: ReadonlyArray<string>
): Effect.Effect<WaitRequest | { readonly kind: "help" }, StartupError> =>
  Effect.gen(function*() {
    const given: Partial<Record<"--pane" | "--socket" | "--timeout" | "--tmux-bin", string>> = {}
    const ids: Array<string> = []
    const refuse = (detail: string) => Effect.fail(settingInvalid("wait", `wait: ${detail}; ${waitUsage}`))
    for (let i = 0; i < argv.length; i++) {
      const arg = argv[i]!
      if (arg === "--help" || arg === "-h") return { kind: "help" } as const
      const eq = arg.indexOf("=")
      const flag = eq === -1 ? arg : arg.slice(0, eq)
      if (flag === "--pane" || flag === "--socket" || flag === "--timeout" || flag === "--tmux-bin") {
        if (eq === -1 && i + 1 >= argv.length) return yield* refuse(`${flag} needs a value`)
        given[flag] = eq === -1 ? argv[++i]! : arg.slice(eq + 1)
      } else if (arg.startsWith("-")) {
        return yield* refuse(`unknown argument ${JSON.stringify(arg)}`)
      } else {
        ids.push(arg)
      }
    }
    if (ids.length !== 1) return yield* refuse(ids.length === 0 ? "give the run's ID" : "give one run ID")
    const runId = ids[0]!
    if (!runIdPattern.test(runId)) {
      return yield* refuse(`${JSON.stringify(runId.slice(0, 40))} is not a run ID (six hex digits, as run_id gives)`)
    }
    const paneId = given["--pane"]
    if (paneId === undefined) return yield* refuse("--pane is required (the pane_id the run was typed in)")
    if (!isPaneId(paneId)) return yield* refuse(`--pane ${JSON.stringify(paneId.slice(0, 40))} is not a pane ID (%N)`)
    const timeout = given["--timeout"]
    const seconds = timeout === undefined ? undefined : Number(timeout)
    if (
      timeout !== undefined &&
      (!/^[0-9]{1,6}(\.[0-9]{1,3})?$/u.test(timeout) || seconds! <= 0 || seconds! > waitTimeoutLimit)
    ) {
      return yield* refuse(
        `--timeout ${JSON.stringify(timeout.slice(0, 40))} is not a number of seconds in (0, ${waitTimeoutLimit}]`
      )
    }
    const env = yield* Effect.mapError(
      Config.all({ socket: textOf("LIBTMUX_SOCKET"), tmuxBin: textOf("LIBTMUX_TMUX_BIN") }).parse(source),
      unreadable
    )
    const socketText = given["--socket"] ?? env.socket
    const socket = socketText === undefined ? defaultSocket : yield* Effect.fromResult(parseSocketSelector(socketText))
    const tmuxBin = yield* Effect.fromResult(parseTmuxBin(given["--tmux-bin"] ?? env.tmuxBin))
    return { kind: "wait", runId, paneId, socket, tmuxBin, timeoutSeconds: seconds } as const
  })
