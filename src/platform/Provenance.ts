/**
 * Provenance of the tmux server on the pinned socket: the shipped minimal configuration, and the
 * record a server started by libtmux-mcp carries (an option any client of the socket could also
 * set: a record, not proof).
 */
import * as Effect from "effect/Effect"
import { existsSync } from "node:fs"
import { dirname, join } from "node:path"
import { fileURLToPath } from "node:url"
import { controlSessionPrefix, isControlSession } from "../domain/protocolNames.ts"
import { lockFolder } from "./Lease.ts"
import { assetFile, packaged } from "./packaged.ts"
import { socketMissing } from "./SocketGuard.ts"
import { buildArgv, execTmux } from "./TmuxExec.ts"

type Environment = Readonly<Record<string, string | undefined>>

/**
 * The shipped minimal configuration file: `share/` of the package, found by walking up from this
 * module, which sits at a different depth in the sources, the compiled modules and the bundle.
 */
const shippedConfigPath = (): string => {
  let dir = dirname(fileURLToPath(import.meta.url))
  for (let depth = 0; depth < 4; depth++) {
    const candidate = join(dir, "share", "tmux-minimal.conf")
    if (existsSync(candidate)) return candidate
    dir = dirname(dir)
  }
  return join(dirname(fileURLToPath(import.meta.url)), "share", "tmux-minimal.conf")
}

/** The shipped file's path; none in the single executable, which has no package folder. */
const shipped = packaged ? undefined : shippedConfigPath()

/**
 * The minimal configuration as a file tmux can read: the shipped one, by path (whoever could swap it
 * could as well swap this package's code), or in the single executable its embedded copy written
 * out (packaged.ts) into this user's lock folder, which Lease.ts makes and checks, and held open
 * (`fd`) for tmux to read as `/dev/fd/<n>`. A string says why there is none.
 */
export const minimalConfigFile = (
  env: Environment,
  uid: number
): { readonly path: string; readonly fd?: number } | string => {
  if (shipped !== undefined) return { path: shipped }
  const folder = lockFolder(env)
  return typeof folder === "string" ? folder : assetFile("tmux-minimal.conf", folder.path, uid)
}

/** Whether `path` is the shipped minimal configuration's file (the single executable ships none). */
export const isShippedMinimalConfig = (path: string): boolean => path === shipped

/** The option a server started by libtmux-mcp carries, naming the product and configuration. */
export const provenanceOption = "@libtmux-mcp-started-by"

/** What a probe finds where no server answers. */
const absent = { state: "absent" as const, provenance: "none" as const, record: undefined, hidden: [] }

/** Per session: its name if it is a connection's hidden session (else `-`), a space, then the record. */
const probeFormat = `#{?#{m:${controlSessionPrefix}*,#{session_name}},#{session_name},-} #{${provenanceOption}}`

/**
 * Whether a server answers on the socket (at `path`), what it records about who started it, and the
 * connections' hidden sessions on it. No socket file, no server: no client is forked only to be told so.
 */
export const probeServer = (
  bin: string,
  flags: ReadonlyArray<string>,
  socket: string,
  env: Environment,
  path: string
) => {
  const asked = execTmux(bin, buildArgv(flags, [["list-sessions", "-F", probeFormat]]), socket, { env })
    .pipe(
      Effect.map((stdout) => {
        const rows = stdout.split("\n").filter((row) => row !== "")
        const hidden = rows.map((row) => row.split(" ", 1)[0]!).filter(isControlSession)
        const first = rows[0] ?? ""
        const record = first.slice(first.indexOf(" ") + 1)
        const provenance = record === "libtmux-mcp minimal"
          ? "recorded-minimal" as const
          : record.startsWith("libtmux-mcp")
          ? "recorded-other" as const
          : "unknown" as const
        return { state: "existing" as const, provenance, record: record === "" ? undefined : record, hidden }
      }),
      Effect.catchTag("ServerNotRunning", () => Effect.succeed(absent))
    )
  return Effect.suspend(() => socketMissing(path) ? Effect.succeed(absent) : asked)
}
