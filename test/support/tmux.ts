/**
 * Isolated tmux worlds for tests: a fresh TMUX_TMPDIR per test, tmux run directly against it,
 * and a cleanup that kills every server started under it. The user's own tmux is never touched.
 */
import { execFileSync } from "node:child_process"
import {
  chmodSync,
  existsSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  realpathSync,
  rmSync,
  writeFileSync
} from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { isControlSession } from "../../src/domain/protocolNames.ts"
import { until } from "./poll.ts"

/** One isolated tmux world. */
export interface TmuxWorld {
  /** The TMUX_TMPDIR of this world (realpath). */
  readonly dir: string
  /** The socket directory tmux uses under it. */
  readonly socketDir: string
  /** The path of a named socket in this world. */
  socketPath(name: string): string
  /**
   * The environment tmux runs in for this world: the test process's, with the world's folder as
   * TMUX_TMPDIR and HOME (as .ci/run gives the tests a fresh HOME: a pane's login shell reads no
   * startup file of the person running the tests and writes nothing in their home), and no TMUX.
   */
  readonly env: Readonly<Record<string, string | undefined>>
  /** Runs tmux on a named socket of this world; returns stdout. */
  tmux(socket: string, ...args: ReadonlyArray<string>): string
  /** Like `tmux`, but returns undefined instead of throwing on failure. */
  tryTmux(socket: string, ...args: ReadonlyArray<string>): string | undefined
  /** Kills every server of this world and removes the folder. */
  dispose(): void
}

/** The longest `label` a world takes: it is part of every socket path in the world. */
const labelLimit = 14
/** The start of a world's folder name: short (socket paths), and free of names tests look for (lmcp). */
const worldPrefix = "tw-"

/**
 * The bytes the deepest socket of a world takes beyond TMPDIR: the folder (`/tw-<label>-XXXXXX`),
 * tmux's `/tmux-<uid>`, and the server's lock there (`/libtmux-mcp-locks/create-<12 hex>.<6 hex>`,
 * src/platform/Lease.ts). A socket path holds at most 107 bytes (test/support/globalSetup.ts).
 */
export const socketRoom = `/${worldPrefix}${"x".repeat(labelLimit)}-XXXXXX/tmux-${process.getuid?.() ?? 0}`.length +
  "/libtmux-mcp-locks/create-".length + 12 + 1 + 6

/**
 * The paths of the Unix sockets a process listens on (Linux's /proc/net/unix: a listening socket
 * has flags 00010000), or every path when that table cannot be read: a world's sockets are killed
 * only while a server holds them.
 */
const listeningSockets = (): { has(path: string): boolean } => {
  let table: string
  try {
    table = readFileSync("/proc/net/unix", "utf8")
  } catch {
    return { has: () => true }
  }
  const paths = new Set<string>()
  // `Num RefCount Protocol Flags Type St Inode Path`: the path is the rest of the line, spaces and all.
  for (const line of table.split("\n").slice(1)) {
    const [, flags, path] = /^\s*\S+ \S+ \S+ (\S+) \S+ \S+ \S+ (.+)$/u.exec(line) ?? []
    if (flags === "00010000" && path !== undefined) paths.add(path)
  }
  return paths
}

/** Whether a server listens on the named socket of `world` (no client is forked to learn it). */
export const serverListening = (world: TmuxWorld, socket = "libtmux-mcp"): boolean =>
  listeningSockets().has(world.socketPath(socket))

/** Makes a fresh world; `label` shows up in the folder name. */
export const makeWorld = (label = "world"): TmuxWorld => {
  if (label.length > labelLimit) throw new Error(`world label ${label} is longer than ${labelLimit} characters`)
  const dir = realpathSync(mkdtempSync(join(tmpdir(), `${worldPrefix}${label}-`)))
  const socketDir = join(dir, `tmux-${process.getuid?.() ?? 0}`)
  const env = { ...process.env, HOME: dir, TMUX_TMPDIR: dir, TMUX: undefined, TMUX_PANE: undefined }
  const tmux = (socket: string, ...args: ReadonlyArray<string>) =>
    execFileSync("tmux", ["-L", socket, "-f", "/dev/null", ...args], {
      env,
      encoding: "utf8",
      stdio: ["ignore", "pipe", "pipe"]
    })
  return {
    dir,
    socketDir,
    env,
    socketPath: (name) => join(socketDir, name),
    tmux,
    tryTmux: (socket, ...args) => {
      try {
        return tmux(socket, ...args)
      } catch {
        return undefined
      }
    },
    dispose: () => {
      if (existsSync(socketDir)) {
        const listening = listeningSockets()
        for (const name of readdirSync(socketDir)) {
          // A server that has exited leaves its socket file: no client is forked to be told so.
          if (!listening.has(join(socketDir, name))) continue
          try {
            execFileSync("tmux", ["-S", join(socketDir, name), "kill-server"], { env, stdio: "ignore" })
          } catch {
            // Already gone.
          }
        }
      }
      // Shells write their history as they exit: retry while the folder is still being written to.
      rmSync(dir, { recursive: true, force: true, maxRetries: 10, retryDelay: 50 })
    }
  }
}

/**
 * A `#()` job that, if tmux ever ran it, would leave the file `marker-<tag>` in the folder it runs
 * in: the client's, the session's or HOME, each the world's folder for a server started in it with
 * `HOME` there (`shellEnv`). The payload holds no path, so no '.' or ':' whatever TMPDIR is (names
 * refuse them before tmux sees them).
 */
export const markerJob = (tag: string): string => `#(touch marker-${tag})`

/**
 * Returns once the tmux server on `socket` has run a job of ours started now (`run-shell` waits for
 * it): the jobs it was given before (a `#()` a test hopes never ran) have had their turn, so their
 * absence means something. With no server there, nothing is left to run.
 */
export const afterFormatJobs = (world: TmuxWorld, socket = "libtmux-mcp"): void => {
  world.tryTmux(socket, "run-shell", "true")
}

/** Waits until `format`, expanded for `pane` on the world's `libtmux-mcp` socket, satisfies `holds`; its value. */
export const paneShows = (
  world: TmuxWorld,
  pane: string,
  format: string,
  holds: (value: string) => boolean
): Promise<string> =>
  until(
    `${format} of pane ${pane}`,
    () => world.tmux("libtmux-mcp", "display-message", "-p", "-t", pane, format).trim(),
    holds
  )

/**
 * The sessions a person made on the world's default socket, sorted: what a raw `tmux ls` shows
 * without the control connections' hidden sessions (src/domain/protocolNames.ts).
 */
export const userSessions = (world: TmuxWorld, socket = "libtmux-mcp"): ReadonlyArray<string> =>
  (world.tryTmux(socket, "list-sessions", "-F", "#{session_name}") ?? "").split("\n")
    .filter((name) => name !== "" && !isControlSession(name)).sort()

/** One invocation a logging tmux saw: when it started (ms since the epoch) and its arguments on one line. */
export interface Invocation {
  readonly ms: number
  readonly args: string
}

/**
 * A tmux binary for LIBTMUX_TMUX_BIN that logs each invocation (its start, and its arguments on one
 * line) in the world, then runs tmux: what a server forked, in order. With `holdControlMs`, a control
 * client (`-C`) waits that long before it runs tmux (a connection slow to open).
 */
export const loggingTmux = (
  world: TmuxWorld,
  { holdControlMs }: { readonly holdControlMs?: number } = {}
): {
  readonly wrapper: string
  readonly invocations: () => Array<string>
  readonly started: () => Array<Invocation>
} => {
  const log = join(world.dir, "invocations.log")
  const wrapper = join(world.dir, "tmux-logging")
  const hold = holdControlMs === undefined ? "" : `case " $* " in *" -C "*) sleep ${holdControlMs / 1000};; esac\n`
  writeFileSync(
    wrapper,
    `#!/bin/sh\nprintf '%s %s\\n' "$(date +%s%N)" "$(printf '%s' "$*" | tr '\\n' ' ')" >> '${log}'\n` +
      `${hold}exec tmux "$@"\n`
  )
  chmodSync(wrapper, 0o755)
  const started = () =>
    existsSync(log)
      ? readFileSync(log, "utf8").split("\n").filter((line) => line !== "").map((line) => {
        const at = line.indexOf(" ")
        return { ms: Number(BigInt(line.slice(0, at)) / 1_000_000n), args: line.slice(at + 1) }
      })
      : []
  return { wrapper, started, invocations: () => started().map(({ args }) => args) }
}
