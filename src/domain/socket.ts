/**
 * Socket selectors and their resolution to a socket path, exactly as tmux resolves them, so the
 * path this server reports is the one tmux uses (and the attach command can use `-S`).
 *
 * Security: this is the pin. Every tmux invocation of the process carries the flags derived
 * here and nothing else selects a socket; no tool takes a socket parameter.
 */
import * as Result from "effect/Result"
import { settingInvalid, type StartupError } from "./StartupError.ts"

/** The three selector forms. @category models */
export type SocketSelector =
  | { readonly form: "name"; readonly name: string }
  | { readonly form: "inherit" }
  | { readonly form: "path"; readonly path: string }

/** The product-scoped default socket. */
export const defaultSocket: SocketSelector = { form: "name", name: "libtmux-mcp" }

const socketNamePattern = /^[A-Za-z0-9._+@-]{1,100}$/u
const validForms = "name:<name> (or a bare name of letters, digits and . _ + @ -), inherit, or path:/absolute/socket"

/** Parses `LIBTMUX_SOCKET`. */
export const parseSocketSelector = (raw: string): Result.Result<SocketSelector, StartupError> => {
  const fail = (why: string) =>
    Result.fail(
      settingInvalid("LIBTMUX_SOCKET", `LIBTMUX_SOCKET ${JSON.stringify(raw)} ${why}; valid forms: ${validForms}`)
    )
  if (raw === "inherit") return Result.succeed({ form: "inherit" })
  if (raw.startsWith("path:")) {
    const path = raw.slice("path:".length)
    if (!path.startsWith("/")) return fail("needs an absolute path")
    if (path.includes("\0")) return fail("contains a NUL byte")
    // sun_path holds 108 bytes including the terminator.
    if (Buffer.byteLength(path) > 107) return fail("is longer than a Unix socket path may be (107 bytes)")
    return Result.succeed({ form: "path", path })
  }
  const name = raw.startsWith("name:") ? raw.slice("name:".length) : raw
  if (!socketNamePattern.test(name) || name === "." || name === "..") return fail("is not a valid socket name")
  return Result.succeed({ form: "name", name })
}

/** The selector written back in its canonical form (`name:x`, `inherit`, `path:/x`). */
export const formatSelector = (selector: SocketSelector): string =>
  selector.form === "inherit" ? "inherit" : selector.form === "name" ? `name:${selector.name}` : `path:${selector.path}`

/**
 * The global tmux flags that pin a selector. For `inherit` with `$TMUX` (`tmux`), the path it names,
 * read from the right: tmux itself cuts `$TMUX` at its first comma, so a socket path holding one
 * would reach another socket without `-S`.
 */
export const socketFlags = (selector: SocketSelector, tmux?: string): ReadonlyArray<string> => {
  if (selector.form === "name") return ["-L", selector.name]
  if (selector.form === "path") return ["-S", selector.path]
  const inherited = inheritedPath(tmux)
  return inherited === undefined ? [] : ["-S", inherited]
}

/**
 * The socket path `$TMUX` names (`<path>,<pid>,<session>`), when it names one. Read from the right:
 * the last two fields are numbers, and the path itself may hold a comma.
 */
export const inheritedPath = (tmux: string | undefined): string | undefined => {
  const match = tmux === undefined ? null : /^(.+),-?[0-9]+,-?[0-9]+$/su.exec(tmux)
  return match === null ? undefined : match[1]
}

/**
 * Whether the socket was handed to us (`path:`, or `$TMUX` with `inherit`) rather than placed by
 * tmux in its own `tmux-<uid>` folder, whose owner and mode tmux checks itself.
 */
export const isHandedSocket = (selector: SocketSelector, tmux: string | undefined): boolean =>
  selector.form === "path" || (selector.form === "inherit" && inheritedPath(tmux) !== undefined)

/** What resolution reads from the process. */
export interface ResolveEnvironment {
  readonly TMUX_TMPDIR?: string | undefined
  readonly TMUX?: string | undefined
  readonly uid: number
  /** `realpath`, or `undefined` when the path cannot be resolved. */
  readonly realpath: (path: string) => string | undefined
}

/**
 * The socket path tmux would use. For a name: the first of `$TMUX_TMPDIR` (when not empty) and
 * `/tmp` whose realpath resolves, then `tmux-<uid>/<name>`. For inherit: the path in `$TMUX` when set,
 * else the `default` name.
 */
export const resolveSocketPath = (selector: SocketSelector, env: ResolveEnvironment): string => {
  if (selector.form === "path") return selector.path
  if (selector.form === "inherit") {
    return inheritedPath(env.TMUX) ?? resolveSocketPath({ form: "name", name: "default" }, env)
  }
  // tmux skips an empty TMUX_TMPDIR (realpath(3) fails on ""); Node's realpath would resolve it
  // to the working folder instead.
  const candidates = env.TMUX_TMPDIR !== undefined && env.TMUX_TMPDIR !== "" ? [env.TMUX_TMPDIR, "/tmp/"] : ["/tmp/"]
  const base = candidates.map((dir) => env.realpath(dir)).find((dir) => dir !== undefined) ?? "/tmp"
  return `${base}/tmux-${env.uid}/${selector.name}`
}
