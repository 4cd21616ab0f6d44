/**
 * The checks startup makes on the machine before it serves: the tmux binary is tmux 3.2 or newer,
 * the configuration file is a readable regular file, and nothing tmux would destroy sits at the
 * socket path. Each failure is a `StartupError` whose reason names what is wrong.
 */
import * as Effect from "effect/Effect"
import { closeSync, lstatSync, openSync, type Stats, statSync } from "node:fs"
import { dirname } from "node:path"
import type { ServerConfig } from "../domain/config.ts"
import type { SocketSelector } from "../domain/socket.ts"
import {
  settingInvalid,
  SocketPathUnsafe,
  type StartupError,
  startupError,
  TmuxUnusable
} from "../domain/StartupError.ts"
import { minimalConfigPath } from "./Provenance.ts"
import { execTmux } from "./TmuxExec.ts"

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

/** The `-f` flags for a server this process starts; the file must be a readable regular file. */
export const configFlags = (config: ServerConfig): Effect.Effect<ReadonlyArray<string>, StartupError> => {
  if (config.socket.form === "inherit" || config.tmuxConfig.kind === "user") return Effect.succeed([])
  const path = config.tmuxConfig.kind === "minimal" ? minimalConfigPath : config.tmuxConfig.path
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
    Effect.as(["-f", path])
  )
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

const statOrMissing = (stat: () => Stats): Stats | "missing" | NodeJS.ErrnoException => {
  try {
    return stat()
  } catch (error) {
    const failure = error as NodeJS.ErrnoException
    return failure.code === "ENOENT" ? "missing" : failure
  }
}

/**
 * Refuses a socket path holding anything but a socket (tmux unlinks whatever is at the path when it
 * starts a server there, a regular file included), and a socket folder that is not a folder. With
 * `path:` the folder must exist too: tmux creates the socket, not its folder.
 */
export const checkSocketPath = (selector: SocketSelector, path: string): Effect.Effect<void, StartupError> =>
  Effect.suspend(() => {
    const unsafe = (detail: string) => Effect.fail(startupError(new SocketPathUnsafe({ path, detail })))
    const instead = selector.form === "path"
      ? "choose another LIBTMUX_SOCKET=path:"
      : "move it away or choose another LIBTMUX_SOCKET"
    const folder = dirname(path)
    const parent = statOrMissing(() => statSync(folder))
    if (parent === "missing") {
      return selector.form === "path"
        ? unsafe(`socket folder ${folder} does not exist; tmux creates the socket, not its folder`)
        : Effect.void
    }
    if (parent instanceof Error) {
      return parent.code === "ENOTDIR"
        ? unsafe(`socket folder ${folder} is not a folder (a part of it is a file); ${instead}`)
        : unsafe(`socket folder ${folder} cannot be examined: ${parent.message}`)
    }
    if (!parent.isDirectory()) {
      return unsafe(`socket folder ${folder} is not a folder (it is ${kindOf(parent)}); ${instead}`)
    }
    const existing = statOrMissing(() => lstatSync(path))
    if (existing === "missing") return Effect.void
    if (existing instanceof Error) return unsafe(`socket path ${path} cannot be examined: ${existing.message}`)
    return existing.isSocket()
      ? Effect.void
      : unsafe(
        `socket path ${path} is ${
          kindOf(existing)
        }, not a socket; tmux would delete it to start a server there, so startup stops: ${instead}`
      )
  })
