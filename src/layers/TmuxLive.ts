/**
 * The live tmux runner: the only place a tmux process is spawned. It builds the argv (global
 * socket flags, then the commands separated by `;`), runs the binary directly (no shell), and
 * types the failure. The authority services are thin views over it, each refusing any command
 * outside its closed set.
 *
 * Security: tmux splits its argv into commands at any argument that ends in `;`. A value that
 * ends in `;` would start a second command, so every argument gets that `;` escaped as `\;`,
 * which tmux turns back into a literal `;`.
 */
import * as Context from "effect/Context"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import { execFile } from "node:child_process"
import { formatSelector } from "../domain/socket.ts"
import { ServerNotRunning, TmuxCommandFailed, type TmuxError, TmuxNotFound, TmuxTimedOut } from "../services/errors.ts"
import { SocketPin } from "../services/SocketPin.ts"
import {
  type Authority,
  changeCommands,
  commandCommands,
  deleteCommands,
  inputCommands,
  type InvocationOptions,
  observeCommands,
  PaneCommand,
  PaneInput,
  spawnCommands,
  TmuxChange,
  TmuxDelete,
  TmuxObserve,
  TmuxSpawn
} from "../services/Tmux.ts"

/** How long one tmux invocation may take before it is killed. */
export const defaultTimeoutMs = 10_000

/** Escapes a trailing `;` so tmux keeps it as text instead of ending the command there. */
export const escapeArgument = (arg: string): string => arg.endsWith(";") ? `${arg.slice(0, -1)}\\;` : arg

/**
 * The argv for several commands in one invocation. `-u` always: without a UTF-8 locale the tmux
 * client rewrites non-ASCII and control bytes in its output to `_`, which would corrupt names and
 * our field separators.
 */
export const buildArgv = (
  globalFlags: ReadonlyArray<string>,
  commands: ReadonlyArray<ReadonlyArray<string>>
): ReadonlyArray<string> => [
  "-u",
  ...globalFlags,
  ...commands.flatMap((command, i) => [...(i === 0 ? [] : [";"]), ...command.map(escapeArgument)])
]

// Both mean nothing listens on the socket: no file, or a stale file from a dead server.
const absentPattern = /no server running on|error connecting to .*\((No such file or directory|Connection refused)\)/u

/** Runs tmux with the given argv; resolves with stdout or a typed failure. */
export const execTmux = (
  bin: string,
  argv: ReadonlyArray<string>,
  socket: string,
  options: InvocationOptions & { readonly env?: Readonly<Record<string, string | undefined>> } = {}
): Effect.Effect<string, TmuxError> => {
  const command = argv.filter((arg, i) => i === 0 || argv[i - 1] === ";").join(" ")
  const timeoutMs = options.timeoutMs ?? defaultTimeoutMs
  return Effect.callback<string, TmuxError>((resume, signal) => {
    // Our own timer: a tmux client that catches SIGTERM exits 0, so the exit status cannot tell.
    let timedOut = false
    const child = execFile(
      bin,
      argv as Array<string>,
      { cwd: options.cwd, env: options.env, signal, maxBuffer: 512 * 1024 * 1024, encoding: "utf8" },
      (error, stdout, stderr) => {
        clearTimeout(timer)
        if (timedOut) return resume(Effect.fail(new TmuxTimedOut({ command, timeoutMs })))
        if (error === null) return resume(Effect.succeed(stdout))
        const code = (error as NodeJS.ErrnoException).code
        if (code === "ENOENT" || code === "EACCES") {
          return resume(Effect.fail(new TmuxNotFound({ bin, reason: code === "ENOENT" ? "not found" : "permission denied" })))
        }
        const text = stderr.trim()
        if (absentPattern.test(text)) return resume(Effect.fail(new ServerNotRunning({ socket })))
        return resume(Effect.fail(new TmuxCommandFailed({ command, exitCode: typeof code === "number" ? code : 1, stderr: text })))
      }
    )
    const timer = setTimeout(() => {
      timedOut = true
      child.kill("SIGKILL")
    }, timeoutMs)
    if (options.input !== undefined) child.stdin?.end(options.input)
    else child.stdin?.end()
  })
}

/** A view over the runner that accepts only the given commands. */
const authority = <Name extends string>(
  names: ReadonlyArray<Name>,
  run: (commands: ReadonlyArray<ReadonlyArray<string>>, options: InvocationOptions) => Effect.Effect<string, TmuxError>,
  allowed: (command: ReadonlyArray<string>) => boolean = () => true
): Authority<Name> => ({
  commands: names,
  run: (commands, options = {}) => {
    const outside = commands.filter((command) => !names.includes(command[0] as Name) || !allowed(command)).map((command) => command[0])
    // The types already forbid this; a runtime check keeps the ceiling if a cast slips through.
    return outside.length > 0 ? Effect.die(new Error(`tmux command(s) ${outside.join(", ")} outside this authority`)) : run(commands, options)
  }
})

/** The live authority services over the pinned socket. @category layers */
export const layer = (bin: string): Layer.Layer<
  TmuxObserve | TmuxChange | TmuxSpawn | TmuxDelete | PaneInput | PaneCommand,
  never,
  SocketPin
> =>
  Layer.effectContext(Effect.gen(function*() {
    const pin = yield* SocketPin
    const socket = formatSelector(pin.selector)
    const pinned = (extraFlags: ReadonlyArray<string>) => (commands: ReadonlyArray<ReadonlyArray<string>>, options: InvocationOptions) =>
      execTmux(bin, buildArgv([...pin.flags, ...extraFlags], commands), socket, { ...options, env: pin.environment })
    const plain = pinned([])
    return Context.make(TmuxObserve, authority(observeCommands, plain)).pipe(
      // A change may drive copy mode (send-keys -X), never type into the pane's program.
      Context.add(TmuxChange, authority(changeCommands, plain, (command) => command[0] !== "send-keys" || command[1] === "-X")),
      // A spawn may start the server, so only spawns carry the configuration-file flags.
      Context.add(TmuxSpawn, authority(spawnCommands, pinned(pin.configFlags))),
      Context.add(TmuxDelete, authority(deleteCommands, plain)),
      Context.add(PaneInput, authority(inputCommands, plain)),
      Context.add(PaneCommand, authority(commandCommands, plain))
    )
  }))
