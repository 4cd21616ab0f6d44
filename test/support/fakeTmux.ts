/**
 * A recording fake of the tmux authority services over a small scripted world, built through the
 * contract's one constructor (`makeAuthorities`), so it refuses exactly what the live layer refuses.
 * It answers the reads the tools make by rendering their own `-F` formats, and records which
 * authority issued which command, so a test can hold every tool to its row's ceiling without a
 * tmux server.
 */
import * as Context from "effect/Context"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import type { Selection } from "../../src/domain/selection.ts"
import * as PaneReaderLive from "../../src/layers/PaneReaderLive.ts"
import * as RegexLive from "../../src/layers/RegexLive.ts"
import * as ShellRunsLive from "../../src/layers/ShellRunsLive.ts"
import { manifest, toolNames } from "../../src/manifest/index.ts"
import { Audit } from "../../src/services/Audit.ts"
import { Config } from "../../src/services/Config.ts"
import { PaneProcess } from "../../src/services/PaneProcess.ts"
import { ServerPane } from "../../src/services/ServerPane.ts"
import { SocketPin } from "../../src/services/SocketPin.ts"
import { makeAuthorities } from "../../src/services/Tmux.ts"
import type { AuthorityName } from "../../src/services/TmuxGrammar.ts"
import { testConfig } from "./config.ts"

/** One recorded tmux command and the authority that issued it. */

/** The pinned socket of the fake tmux: a default name, held, with no server at startup. */
export const fakeSocketPin: Context.Service.Shape<typeof SocketPin> = {
  selector: { form: "name", name: "libtmux-mcp" },
  flags: ["-L", "libtmux-mcp"],
  resolvedPath: "/tmp/tmux-0/libtmux-mcp",
  place: undefined,
  serverStateAtStartup: "absent",
  provenanceAtStartup: "none",
  provenanceRecord: undefined,
  hiddenAtStartup: [],
  lease: { state: "held" },
  newServerConfig: { flags: [], fd: undefined, label: "user" },
  environment: {}
}

export interface Recorded {
  readonly authority: AuthorityName
  readonly command: string
  readonly argv: ReadonlyArray<string>
}

type Fields = Record<string, string | number>

const session: Fields = {
  session_id: "$0",
  session_name: "work",
  session_windows: 1,
  session_attached: 0,
  session_created: 1,
  session_path: "/tmp"
}
const window: Fields = {
  window_id: "@0",
  window_index: 0,
  window_name: "sh",
  window_active: 1,
  window_panes: 2,
  window_width: 80,
  window_height: 24,
  window_layout: "b25d,80x24,0,0,0",
  session_id: "$0",
  session_name: "work"
}
const pane: Fields = {
  pane_id: "%0",
  pane_index: 0,
  pane_active: 1,
  pane_width: 40,
  pane_height: 24,
  pane_left: 0,
  pane_top: 0,
  pane_title: "t",
  pane_current_command: "sh",
  pane_current_path: "/tmp",
  pane_pid: 42,
  pane_tty: "/dev/pts/0",
  pane_dead: 0,
  pane_in_mode: 0,
  window_id: "@0",
  window_index: 0,
  session_id: "$0",
  session_name: "work",
  pid: 7,
  version: "3.3a",
  start_time: 1,
  socket_path: "/tmp/tmux-0/libtmux-mcp",
  cursor_x: 2,
  cursor_y: 1,
  history_size: 0,
  history_limit: 2000,
  alternate_on: 0,
  pane_mode: "",
  scroll_position: "",
  "synchronize-panes": 0
}

/** The window's second pane, to its right: swap_pane needs two. */
const rightPane: Fields = {
  ...pane,
  pane_id: "%1",
  pane_index: 1,
  pane_active: 0,
  pane_width: 39,
  pane_left: 41,
  pane_pid: 43
}

/** The pane a command targets with `-t`: the second pane when named, else the first. */
const targeted = (command: ReadonlyArray<string>): Fields =>
  command[command.indexOf("-t") + 1] === "%1" ? rightPane : pane

/** Renders a `-F` format for one object of the scripted world. */
const render = (format: string, fields: Fields): string =>
  // A run_shell_command run's end record (at the prompt row, status 0), and its record still there.
  format.replace(/#\{([a-z0-9_@-]+)\}/gu, (_, key: string) =>
    key.startsWith("@lmcp_end_")
      ? "0 1 0 0"
      : key.startsWith("@lmcp_run_")
      ? "recorded"
      : String(fields[key] ?? ""))

const answer = (command: ReadonlyArray<string>): string => {
  const format = command[command.indexOf("-F") + 1] ?? ""
  switch (command[0]) {
    case "list-sessions":
      return `${render(format, { ...pane, ...session })}\n`
    case "list-windows":
      return `${render(format, window)}\n`
    case "list-panes":
      return `${render(format, pane)}\n${render(format, rightPane)}\n`
    case "display-message":
      return `${render(command.at(-1) ?? "", { ...targeted(command), ...window })}\n`
    case "capture-pane":
      return "$ echo hi\nhi\n$ \n"
    case "new-session":
    case "new-window":
    case "split-window":
      return `${
        render(format, {
          ...session,
          session_id: "$1",
          session_name: "new",
          window_id: "@1",
          window_index: 1,
          pane_id: "%1"
        })
      }\n`
    default:
      return ""
  }
}

/** The fake services, every tool's selection, and the log of what they were asked to run. */
export const makeFake = () => {
  const log: Array<Recorded> = []
  const record = (authority: AuthorityName, commands: ReadonlyArray<ReadonlyArray<string>>) =>
    Effect.sync(() => {
      for (const argv of commands) log.push({ authority, command: argv[0] ?? "", argv })
      return commands.map(answer).join("")
    })
  const selection: Selection = {
    toolsets: ["inspect", "manage", "execute", "teardown"],
    tools: toolNames,
    batchOperations: toolNames.filter((name) => manifest[name].batchEligible),
    defaultApplied: null
  }
  const context = makeAuthorities({
    run: (commands, _options, authority) => record(authority, commands),
    spawn: (commands, _options, authority) => record(authority, commands),
    create: (commands) =>
      Effect.map(record("TmuxSpawn", commands), (stdout) => ({ stdout, startedServer: false, provenance: "unknown" }))
  }).pipe(
    Context.add(SocketPin, fakeSocketPin),
    Context.add(ServerPane, { panes: Effect.succeed([]), oneAtATime: (effect) => effect }),
    Context.add(Audit, {
      intent: () => Effect.succeed(0),
      outcome: () => Effect.void,
      rejection: () => Effect.void,
      status: Effect.succeed({ destination: "stderr" as const, path: null, fallback_path: null, moved: null })
    }),
    Context.add(PaneProcess, {
      shell: () =>
        Effect.succeed({ comm: "bash", inForeground: true, reading: true, foreground: "bash", foregroundGroup: 42 }),
      front: () => Effect.succeed(undefined),
      terminalMode: () => Effect.succeed(undefined),
      environment: () => Effect.succeed(undefined),
      exitOf: () => Effect.succeed(undefined)
    }),
    Context.add(Config, {
      config: testConfig(),
      selection,
      version: "test",
      tmuxPath: "/usr/bin/tmux"
    })
  )
  return {
    log,
    layer: Layer.mergeAll(PaneReaderLive.layer, ShellRunsLive.layer, RegexLive.layer).pipe(
      Layer.provideMerge(Layer.succeedContext(context))
    ),
    manifest
  }
}
