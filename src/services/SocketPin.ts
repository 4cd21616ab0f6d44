/**
 * The one tmux socket this process is pinned to for its lifetime, what was found there at
 * startup, and the configuration a server this process starts would get.
 */
import * as Context from "effect/Context"
import type { SocketSelector } from "../domain/socket.ts"
import type { SocketPlace } from "../domain/socketPlace.ts"

/** How this instance stands on its socket. @category models */
export type LeaseState =
  | { readonly state: "held" }
  | { readonly state: "shared"; readonly holder: string }
  | { readonly state: "unavailable"; readonly reason: string }

/** The configuration a server this process starts gets. @category models */
export interface NewServerConfig {
  /** Global flags that choose the file (`-f <file>`); none when tmux chooses. */
  readonly flags: ReadonlyArray<string>
  /**
   * A descriptor held open on the file checked at startup, given to each spawn as its fd 3 (the
   * flags then name `/dev/fd/3`): tmux reads that file, not whatever has its name by then.
   */
  readonly fd: number | undefined
  /** What a server started with it records: `minimal`, `user`, `tmux-default` or `path:<file>`. */
  readonly label: string
}

/** The pinned socket. @category services */
export class SocketPin extends Context.Service<SocketPin, {
  readonly selector: SocketSelector
  /** The global tmux flags that select the socket (`-L name`, `-S path`, or none). */
  readonly flags: ReadonlyArray<string>
  /** The socket path tmux resolves the selector to. */
  readonly resolvedPath: string
  /**
   * Where a socket we were handed (`path:`, `inherit` with `$TMUX`) lies, checked before every
   * tmux invocation; undefined for a socket in tmux's own `tmux-<uid>` folder.
   */
  readonly place: SocketPlace | undefined
  /** Whether a server answered on the socket at startup. */
  readonly serverStateAtStartup: "absent" | "existing"
  /**
   * What the server on the socket recorded about who started it (`@libtmux-mcp-started-by`): a
   * record anyone on the socket could have written, not proof. `none` when no server was there.
   */
  readonly provenanceAtStartup: "none" | "unknown" | "recorded-minimal" | "recorded-other"
  /** The recorded value, when there is one. */
  readonly provenanceRecord: string | undefined
  /** The control connections' hidden sessions the startup probe found (none when no server was there). */
  readonly hiddenAtStartup: ReadonlyArray<string>
  /** This instance's advisory lease on the socket. */
  readonly lease: LeaseState
  /** The configuration a spawn that starts the server gives it. */
  readonly newServerConfig: NewServerConfig
  /**
   * The environment every tmux client runs with: the one the socket was resolved from, so the
   * path reported is the path used (TMUX_TMPDIR, TMUX), and the one a new server's panes inherit.
   */
  readonly environment: Readonly<Record<string, string | undefined>>
}>()("libtmux-mcp/services/SocketPin") {}
