/**
 * The raw tmux runner: the only place a tmux process is spawned. It builds the argv (global socket
 * flags, then the commands separated by `;`), runs the binary directly (no shell), and types the
 * failure. Nothing outside the layers may import it: tools reach tmux through the authority services.
 *
 * Security: tmux splits its argv into commands at any argument that ends in `;`. A value that
 * ends in `;` would start a second command, so every argument gets that `;` escaped as `\\;`,
 * which tmux turns back into a literal `;`.
 */
import * as Effect from "effect/Effect"
import * as Semaphore from "effect/Semaphore"
import { spawn } from "node:child_process"
import { availableParallelism } from "node:os"
import { tmuxRefusal } from "../domain/tmuxRefusals.ts"
import {
  ServerNotRunning,
  TmuxCommandFailed,
  type TmuxError,
  TmuxNotFound,
  TmuxOutputTooLarge,
  TmuxTimedOut
} from "../services/errors.ts"
import { isBlocking, type RunnerOptions } from "../services/Tmux.ts"

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

/** The commands' names, as failures name an invocation. */
export const commandLabel = (commands: ReadonlyArray<ReadonlyArray<string>>): string =>
  commands.map((command) => command[0]).join(" ")

/**
 * How many short tmux commands may run at once: enough to keep every core busy while tmux
 * clients wait on the single-threaded server, few enough that a burst queues in this process
 * instead of piling onto the server until commands time out.
 */
export const poolSize = (cores: number = availableParallelism()): number => Math.max(4, 2 * cores)

/**
 * A pool of `size` permits for short invocations: `pooled(commands, exec)` runs `exec` once it
 * holds a permit (so its timeout, which starts when the client is spawned, starts then too), or at
 * once when the invocation blocks.
 */
export const makePool = (size: number) =>
  Effect.map(
    Semaphore.make(size),
    (pool) =>
    <A, E, R>(commands: ReadonlyArray<ReadonlyArray<string>>, exec: Effect.Effect<A, E, R>): Effect.Effect<A, E, R> =>
      isBlocking(commands) ? exec : pool.withPermit(exec)
  )

/**
 * The path a tmux client reads a file passed to it (`passFd`) from: its fd 3. On Linux, opening it
 * opens the very file that descriptor is on, from its start, whatever has its name by then.
 */
export const passedFilePath = "/dev/fd/3"

/** The most a tmux client may print on one stream before it is stopped (a capture of a huge history). */
export const defaultMaxOutputBytes = 512 * 1024 * 1024

/** What `execTmux` takes beyond the runner's options. */
type ExecOptions = RunnerOptions & {
  readonly env?: Readonly<Record<string, string | undefined>>
  /** A descriptor of ours the client gets as its fd 3 (`passedFilePath`). */
  readonly passFd?: number | undefined
  /** How failures name the invocation (`commandLabel`). */
  readonly label?: string
}

/** Spawns the client: stdin is /dev/null unless there is input, and `passFd` becomes its fd 3. */
const spawnClient = (bin: string, argv: ReadonlyArray<string>, options: ExecOptions, signal: AbortSignal) =>
  spawn(bin, argv as Array<string>, {
    cwd: options.cwd,
    env: options.env,
    signal,
    stdio: [
      options.input === undefined ? "ignore" : "pipe",
      "pipe",
      "pipe",
      ...(options.passFd === undefined ? [] : [options.passFd])
    ]
  })

/**
 * Keeps a stream's bytes up to `limitBytes`; past it, `overflow` runs (on each chunk) and the rest is
 * dropped, so a huge output never sits in memory. Returns the text kept.
 */
const collectOutput = (stream: NodeJS.ReadableStream, limitBytes: number, overflow: () => void) => {
  const chunks: Array<Buffer> = []
  let bytes = 0
  stream.on("data", (chunk: Buffer) => {
    bytes += chunk.length
    if (bytes > limitBytes) overflow()
    else chunks.push(chunk)
  })
  return () => Buffer.concat(chunks, Math.min(bytes, limitBytes)).toString("utf8")
}

/** A failed exit's typed error: a server that is not there, or the command's own failure. */
const exitFailure = (command: string, socket: string, code: number | null, text: string): TmuxError =>
  // Nothing listens on the socket, or the server went away while the command was in flight.
  tmuxRefusal(text)._tag === "ServerAbsent"
    ? new ServerNotRunning({ socket })
    : new TmuxCommandFailed({ command, exitCode: code ?? 1, stderr: text })

/**
 * Runs tmux with the given argv; resolves with stdout or a typed failure. Spawned directly, not
 * through `execFile`: without input, stdin is /dev/null from the start (no pipe to make and end).
 */
export const execTmux = (
  bin: string,
  argv: ReadonlyArray<string>,
  socket: string,
  options: ExecOptions = {}
): Effect.Effect<string, TmuxError> => {
  const command = options.label ?? argv.filter((arg, i) => i === 0 || argv[i - 1] === ";").join(" ")
  const timeoutMs = options.timeoutMs ?? defaultTimeoutMs
  const limitBytes = options.maxOutputBytes ?? defaultMaxOutputBytes
  return Effect.callback<string, TmuxError>((resume, signal) => {
    // Our own timer: a tmux client that catches SIGTERM exits 0, so the exit status cannot tell.
    let timedOut = false
    let tooLarge = false
    let settled = false
    const settle = (effect: Effect.Effect<string, TmuxError>) => {
      if (settled) return
      settled = true
      clearTimeout(timer)
      resume(effect)
    }
    const child = spawnClient(bin, argv, options, signal)
    const overflow = () => {
      tooLarge = true
      child.kill("SIGKILL")
    }
    const stdout = collectOutput(child.stdout!, limitBytes, overflow)
    const stderr = collectOutput(child.stderr!, limitBytes, overflow)
    child.on("error", (error: NodeJS.ErrnoException) => {
      if (error.code === "ENOENT" || error.code === "EACCES") {
        settle(
          Effect.fail(new TmuxNotFound({ bin, reason: error.code === "ENOENT" ? "not found" : "permission denied" }))
        )
      }
      // Any other error (an abort) is followed by `close`, which answers.
    })
    child.on("close", (code) => {
      if (timedOut) return settle(Effect.fail(new TmuxTimedOut({ command, timeoutMs })))
      if (tooLarge) return settle(Effect.fail(new TmuxOutputTooLarge({ command, limitBytes })))
      if (code === 0) return settle(Effect.succeed(stdout()))
      settle(Effect.fail(exitFailure(command, socket, code, stderr().trim())))
    })
    // A loop that turns late (a busy process) runs its due timers before it reads the exit that came
    // meanwhile: the verdict waits for this turn's I/O, so a client that answered is not timed out.
    const timer = setTimeout(() =>
      setImmediate(() => {
        if (settled || child.exitCode !== null || child.signalCode !== null) return
        timedOut = true
        child.kill("SIGKILL")
      }), timeoutMs)
    if (options.input !== undefined) {
      // A client that exits before reading all of it breaks the pipe; `close` says how it ended.
      child.stdin!.on("error", () => undefined)
      child.stdin!.end(options.input)
    }
  })
}
