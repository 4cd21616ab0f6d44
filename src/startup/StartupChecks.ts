/**
 * The checks startup makes on the machine before it serves: the tmux binary is tmux 3.2 or newer,
 * the configuration file is a readable regular file (the single executable's is held open), nothing
 * tmux would destroy sits at the socket path, and a socket we were handed is out of other users'
 * reach. Each failure is a `StartupError` whose reason names what is wrong.
 */
import * as Effect from "effect/Effect"
import type * as Scope from "effect/Scope"
import { closeSync, openSync, type Stats, statSync } from "node:fs"
import type { ServerConfig } from "../domain/config.ts"
import { isHandedSocket, type SocketSelector } from "../domain/socket.ts"
import { checkPlace, checkTmuxFolderPath, placeOf, type PlaceRefusal, type SocketPlace } from "../domain/socketPlace.ts"
import {
  settingInvalid,
  SocketPathUnsafe,
  type StartupError,
  startupError,
  TmuxUnusable
} from "../domain/StartupError.ts"
import { isShippedMinimalConfig, minimalConfigFile } from "../platform/Provenance.ts"
import { liveReader } from "../platform/SocketGuard.ts"
import { execTmux, passedFilePath } from "../platform/TmuxExec.ts"
import type { NewServerConfig } from "../services/SocketPin.ts"

type Environment = Readonly<Record<string, string | undefined>>

/** The oldest tmux this project supports. */
const minimumTmux = [3, 2] as const

/**
 * The release `tmux -V` names: `tmux 3.3a`, `tmux 3.2-rc2`, `tmux next-3.6`. `tmux master` (a
 * development build) has no number and is taken as new enough; anything else is not tmux.
 */
export const tmuxRelease = (text: string): "development" | readonly [number, number] | undefined => {
  if (text === "tmux master") return "development"
  const match = /^tmux (?:next-)?(\d+)\.(\d+)[a-z]?(?:-rc\d*)?$/u.exec(text)
  return match === null ? undefined : [Number(match[1]), Number(match[2])]
}

/** Runs `<bin> -V`; refuses a binary that does not run, is not tmux, or is older than 3.2. */
export const checkTmuxVersion = (config: ServerConfig, env: Environment): Effect.Effect<string, StartupError> => {
  const unusable = (detail: string) => startupError(new TmuxUnusable({ bin: config.tmuxBin, detail }))
  const needed = `libtmux-mcp needs tmux ${minimumTmux.join(".")} or newer`
  return execTmux(config.tmuxBin, ["-V"], "-", { env }).pipe(
    Effect.mapError((error) => unusable(error.message)),
    Effect.flatMap((output) => {
      const text = output.trim()
      const release = tmuxRelease(text)
      if (release === undefined) {
        return Effect.fail(
          unusable(
            `${config.tmuxBin} -V printed ${
              JSON.stringify(text.slice(0, 80))
            }, not a tmux version; ${needed} (set LIBTMUX_TMUX_BIN)`
          )
        )
      }
      const [major, minor] = release === "development" ? [Infinity, 0] : release
      return major > minimumTmux[0] || (major === minimumTmux[0] && minor >= minimumTmux[1])
        ? Effect.succeed(text)
        : Effect.fail(unusable(`${config.tmuxBin} is ${text}; ${needed}`))
    })
  )
}

/**
 * The configuration for a server this process starts: tmux's own choice (`inherit`, `user`), or a
 * file that must be a readable regular file. The single executable's minimal configuration is held
 * open from here, checked through its descriptor (packaged.ts), and given to tmux as `/dev/fd/3`
 * until the scope closes: tmux reads the file checked now, however much later it starts a server.
 */
export const configForNewServer = (
  config: ServerConfig,
  env: Environment,
  uid: number
): Effect.Effect<NewServerConfig, StartupError, Scope.Scope> => {
  const choice = config.tmuxConfig
  if (config.socket.form === "inherit") return Effect.succeed({ flags: [], fd: undefined, label: "tmux-default" })
  if (choice.kind === "user") return Effect.succeed({ flags: [], fd: undefined, label: "user" })
  const opened: Effect.Effect<ReturnType<typeof minimalConfigFile>, never, Scope.Scope> = choice.kind === "minimal"
    ? Effect.acquireRelease(
      Effect.sync(() => minimalConfigFile(env, uid)),
      (file) => Effect.sync(() => typeof file !== "string" && file.fd !== undefined && closeSync(file.fd))
    )
    : Effect.succeed({ path: choice.path })
  return Effect.flatMap(opened, (file): Effect.Effect<NewServerConfig, StartupError> => {
    if (typeof file === "string") {
      return Effect.fail(settingInvalid(
        "LIBTMUX_TMUX_CONFIG",
        `LIBTMUX_TMUX_CONFIG minimal: the executable's minimal configuration has no file (${file}); ` +
          "give a readable regular file, or user"
      ))
    }
    if (file.fd !== undefined) {
      return Effect.succeed({ flags: ["-f", passedFilePath], fd: file.fd, label: "minimal" })
    }
    const path = file.path
    const label = choice.kind === "minimal" || isShippedMinimalConfig(path) ? "minimal" : `path:${path}`
    const refuse = (why: string) =>
      settingInvalid(
        "LIBTMUX_TMUX_CONFIG",
        `LIBTMUX_TMUX_CONFIG file ${path} ${why}; give a readable regular file, minimal or user`
      )
    return Effect.try({
      try: () => statSync(path),
      catch: () => refuse("does not exist or cannot be read")
    }).pipe(
      Effect.flatMap((stats) =>
        // Checked before opening: opening a FIFO for reading would wait for a writer.
        stats.isFile()
          ? Effect.try({ try: () => closeSync(openSync(path, "r")), catch: () => refuse("cannot be read") })
          : Effect.fail(refuse(`is not a regular file (it is ${kindOf(stats)})`))
      ),
      Effect.as({ flags: ["-f", path], fd: undefined, label })
    )
  })
}

const kindOf = (stats: Stats): string =>
  stats.isFile()
    ? "a regular file"
    : stats.isDirectory()
    ? "a folder"
    : stats.isSymbolicLink()
    ? "a symbolic link"
    : stats.isFIFO()
    ? "a FIFO"
    : stats.isSocket()
    ? "a socket"
    : "a device"

/**
 * Refuses a socket path tmux would destroy (it unlinks whatever is at the path to start a server
 * there, a regular file included) or cannot use. A handed socket (`path:`, or `$TMUX` with
 * `inherit`) must also be out of other users' reach, folders included, before the startup probe
 * connects to it; its place is what each later invocation checks again.
 */
export const checkSocketPath = (
  selector: SocketSelector,
  path: string,
  env: Environment,
  uid: number
): Effect.Effect<SocketPlace | undefined, StartupError> =>
  Effect.suspend(() => {
    const unsafe = (refusal: PlaceRefusal) => Effect.fail(startupError(new SocketPathUnsafe(refusal)))
    if (!isHandedSocket(selector, env.TMUX)) {
      const refusal = checkTmuxFolderPath(path, liveReader)
      return refusal === undefined ? Effect.succeed(undefined) : unsafe(refusal)
    }
    const place = placeOf(path, uid, liveReader)
    if ("detail" in place) return unsafe(place)
    const refusal = checkPlace(place, liveReader, "connect")
    return refusal === undefined ? Effect.succeed(place) : unsafe(refusal)
  })
