/**
 * What the server says about itself: the one-line startup record and the warning line on stderr,
 * the attach command a person uses to watch, the instructions the agent reads, and the
 * `tmux://capabilities` document. All generated from the effective configuration, never static
 * strings, and none of them claims more than the code does.
 */
import { defaultRecordLimits } from "../domain/asciicast.ts"
import { hostNames, type HostTable } from "../domain/hosts.ts"
import { attachCommandFor, recordPair } from "../domain/quote.ts"
import { formatSelector } from "../domain/socket.ts"
import { hubLine, toolHosts } from "../hub/hostParameter.ts"
import { capabilityRecord, manifest, type ToolName, type Toolset } from "../manifest/index.ts"
import { processVisibility } from "../platform/ProcessVisibility.ts"
import type { AuditStatus } from "../services/Audit.ts"
import type { RecordingStatus } from "../services/Recorder.ts"
import type { StartupFacts } from "../startup/Startup.ts"
import { reachesHostCommands } from "../tools/define.ts"
import { version } from "../version.ts"
import { appMimeType, paneViewResource, uiExtension } from "./PaneApp.ts"

/** The server instructions' byte budget (UTF-8). */

/**
 * How many selected tools can run commands on the host outside tmux's panes: counted from what
 * their authorities' grammars admit (`reachesHostCommands`), not written down, so a grammar that
 * came to admit `run-shell`, a `copy-pipe` or a `status-*` option would show here.
 */
export const hostCommandTools = (tools: ReadonlyArray<ToolName>): number =>
  tools.filter((name) => reachesHostCommands(manifest[name])).length

export const instructionsBudget = 2048

/** The command a person attaches with (see `attachCommandFor`). */
export const attachCommand = (facts: StartupFacts): string => attachCommandFor(facts.pin.resolvedPath)

const enabled = (facts: StartupFacts, name: ToolName): boolean => facts.selection.tools.includes(name)

/** Whether any enabled tool can start a process or deliver input to one. */
export const commandCapable = (facts: StartupFacts): boolean =>
  facts.selection.tools.some((name) => manifest[name].reach !== "none" || manifest[name].amplifiesFutureInput)

/** What is known of the configuration of the tmux server on the socket at startup. */
export const configurationProvenance = (facts: StartupFacts): "none" | "unknown" | "recorded" =>
  facts.pin.provenanceAtStartup === "none"
    ? "none"
    : facts.pin.provenanceAtStartup === "unknown"
    ? "unknown"
    : "recorded"

/** The configuration a tmux server started by this process gets. */
const configurationForNewServer = (facts: StartupFacts): string =>
  facts.config.socket.form === "inherit"
    ? "tmux default"
    : facts.config.tmuxConfig.kind === "path"
    ? `path:${facts.config.tmuxConfig.path}`
    : facts.config.tmuxConfig.kind

/**
 * Whether a tmux server this process starts gives its panes the no-pager environment: only the
 * minimal configuration sets it (share/tmux-minimal.conf); servers we did not start are left alone.
 */
export const pagersForNewServer = (facts: StartupFacts): "off" | "unchanged" =>
  facts.config.socket.form !== "inherit" && facts.config.tmuxConfig.kind === "minimal" ? "off" : "unchanged"

/** The startup record: one line on stderr when ready. */
export const readyLine = (facts: StartupFacts): string => {
  const { pin, selection } = facts
  const pairs: Array<[string, string | number | boolean]> = [
    ["version", version],
    ["socket", formatSelector(pin.selector)],
    ["socket_form", pin.selector.form],
    ["resolved_socket_path", pin.resolvedPath],
    ["server_state", pin.serverStateAtStartup],
    ["configuration_provenance", configurationProvenance(facts)],
    ["configuration_for_new_server", configurationForNewServer(facts)],
    ["pagers_for_new_server", pagersForNewServer(facts)],
    ["lease", facts.pin.lease.state],
    ["default_applied", selection.defaultApplied === null ? "none" : selection.defaultApplied.toolsets.join(",")],
    ["default_reason", selection.defaultApplied?.reason ?? "LIBTMUX_TOOLSETS given"],
    ["toolsets", selection.toolsets.join(",")],
    ["tools", selection.tools.length],
    ["command_capable", commandCapable(facts)],
    ["host_command_tools", hostCommandTools(selection.tools)],
    ["attach_command", attachCommand(facts)]
  ]
  return ["libtmux-mcp ready", ...pairs.map(([key, value]) => recordPair(key, value))].join(" ")
}

/** The separate warning lines: an inherited socket, a socket shared with another instance. */
export const warningLines = (facts: StartupFacts): ReadonlyArray<string> => [
  ...[inheritedWarning(facts)].filter((line) => line !== undefined),
  ...(facts.pin.lease.state === "shared"
    ? [[
      "libtmux-mcp warning:",
      recordPair("lease", "shared"),
      recordPair("holder", facts.pin.lease.holder),
      recordPair(
        "note",
        "another libtmux-mcp instance is using this socket: both act on the " +
          "same sessions (LIBTMUX_LEASE=exclusive refuses to start instead)"
      )
    ].join(" ")]
    : [])
]

const inheritedWarning = (facts: StartupFacts): string | undefined =>
  facts.pin.selector.form !== "inherit" ? undefined : [
    "libtmux-mcp warning:",
    recordPair("socket", "inherit"),
    recordPair("resolved_socket_path", facts.pin.resolvedPath),
    recordPair("server_state", facts.pin.serverStateAtStartup),
    recordPair(
      "note",
      "this is tmux's own socket selection, usually the tmux server your " +
        "ordinary sessions live on: the enabled tools act on those sessions"
    )
  ].join(" ")

const callerLine = (facts: StartupFacts): string | undefined => {
  const { caller } = facts
  if (caller.paneId === undefined) return undefined
  return caller.onPinnedSocket
    ? `This MCP server itself runs in tmux pane ${caller.paneId} on this socket: list_panes ` +
      "marks it is_caller=true; do not type into it, and kill_session refuses its session."
    : `This MCP server itself runs in tmux pane ${caller.paneId} of another tmux server (${
      caller.socketPath ?? "unknown socket"
    }); these tools cannot reach that pane.`
}

/** A hub's hosts as its own table declares them; what each host's server is and holds, it says itself. */
const hostsRecord = (table: HostTable, hub: ReadonlyArray<Toolset>) => ({
  default_host: table.defaultHost,
  local: table.local,
  remote: table.remotes.map((host) => ({
    name: host.name,
    destination: host.destination,
    ...(host.port === undefined ? {} : { port: host.port })
  })),
  // What each host offers: its --host-toolsets, or the hub's toolsets (each tool's `hosts` lists where it is).
  toolsets: Object.fromEntries(hostNames(table).map((host) => [host, table.toolsets?.[host] ?? hub])),
  ...(table.toolsets === undefined ? {} : { narrowed: Object.keys(table.toolsets) }),
  note: "each remote host runs its own libtmux-mcp over one kept ssh -T session: the socket, lease, audit and " +
    "capability records there are that server's own (get_server_info shows each host's state); the records " +
    "above are this server's"
})

/** The server instructions the agent reads at initialization; within the byte budget. */
export const instructions = (facts: StartupFacts): string => {
  const { selection } = facts
  const lines = [
    ...(facts.config.hosts === undefined ? [] : [hubLine(facts.config.hosts)]),
    // With --no-local no call reaches this machine's tmux: its socket and attach command say nothing.
    ...(facts.config.hosts?.local === false ? [] : [
      `${facts.config.hosts === undefined ? "These" : "On local, these"} tools operate on tmux socket ${
        formatSelector(facts.pin.selector)
      } (${facts.pin.resolvedPath}) and no other tmux server.`,
      `Tell the user, when you start work, that they can watch with: ${attachCommand(facts)}`
    ]),
    selection.toolsets.length > 0
      ? `Enabled toolsets: ${selection.toolsets.join(", ")}.`
      : `No toolsets enabled; individual tools only.`,
    ...(commandCapable(facts)
      ? ["Execute tools start shells and run what they receive with the user's permissions."]
      : []),
    "Tool filtering is not an OS sandbox and does not constrain other MCP tools.",
    ...(enabled(facts, "run_shell_command")
      ? [
        "run_shell_command folds typing, waiting and capture into one call: prefer it to send_keys plus polling.",
        "For a run of minutes, give a timed_out result's watch_command to your host's background runner (it " +
        "exits when the run ends or blocks), then resume once, instead of resuming in a loop.",
        ...(facts.config.watchSsh === undefined
          ? []
          : ["Here watch_command runs through ssh: its exit code 255 means the link was lost; run it again."])
      ]
      : []),
    ...(enabled(facts, "send_keys_batch") ? ["send_keys_batch folds ordered input into one call."] : []),
    "Target by the IDs the list tools return ($1 session, @2 window, %3 pane); names match exactly, never by prefix.",
    ...(facts.pin.serverStateAtStartup === "existing"
      ? [
        `A tmux server was already running on this socket (configuration ${
          configurationProvenance(facts)
        }): its sessions may belong to the user or another agent.`
      ]
      : []),
    ...(facts.pin.lease.state === "shared"
      ? ["Another libtmux-mcp instance uses this socket too: its sessions are not yours to remove."]
      : []),
    ...[callerLine(facts)].filter((line) => line !== undefined)
  ]
  return lines.join("\n")
}

/** Where recordings go before any pane has been recorded; `null` when recording is off. */
export const initialRecordingStatus = (facts: StartupFacts): RecordingStatus | null =>
  facts.config.record === undefined
    ? null
    : {
      folder: facts.config.record,
      panes: [],
      part_bytes: defaultRecordLimits.partBytes,
      parts_kept: defaultRecordLimits.partsKept
    }

/** Where audit records go before any has been written. */
export const initialAuditStatus = (facts: StartupFacts): AuditStatus =>
  facts.audit.kind === "file"
    ? { destination: "file", path: facts.audit.path, fallback_path: null, moved: null }
    : { destination: "stderr", path: null, fallback_path: facts.audit.fallbackPath ?? null, moved: null }

/**
 * The pane view, when this server offers it: to whom, its page, and its tool's record (that tool is
 * not in `tools`, which a client without the UI extension is offered).
 */
const paneViewRecord = (facts: StartupFacts) => {
  const { selection } = facts
  const appTools = selection.tools.filter((name) => manifest[name].audience === "app")
  if (appTools.length === 0 || facts.config.hosts !== undefined) return {}
  return {
    pane_view: {
      offered_to: `clients that declare the ${uiExtension} extension with ${appMimeType}`,
      resource: paneViewResource.uri,
      note: "a read-only view of a pane for the person; it polls its app-only tool and sends no keys",
      tools: appTools.map((name) => ({ name, title: manifest[name].title, ...capabilityRecord(manifest[name]) }))
    }
  }
}

/**
 * The `tmux://capabilities` document: the startup-filtered surface and how it was chosen;
 * `audit` is where records go now.
 */
export const capabilitiesDocument = (
  facts: StartupFacts,
  audit: AuditStatus = initialAuditStatus(facts),
  recording: RecordingStatus | null = initialRecordingStatus(facts)
) => {
  const { pin, selection } = facts
  const outputs = (name: ToolName) => manifest[name].output as ReadonlyArray<string>
  return {
    version,
    socket: {
      selector: formatSelector(pin.selector),
      form: pin.selector.form,
      resolved_socket_path: pin.resolvedPath,
      attach_command: attachCommand(facts)
    },
    server_state: pin.serverStateAtStartup,
    configuration_provenance: configurationProvenance(facts),
    provenance_record: pin.provenanceRecord ?? null,
    provenance_note: "a recorded provenance is an option on the tmux server that " +
      "any client of the socket could have set: a record, not proof",
    adoption: facts.config.adopt,
    lease: {
      mode: facts.config.lease,
      state: pin.lease.state,
      ...(pin.lease.state === "shared" ? { holder: pin.lease.holder } : {}),
      ...(pin.lease.state === "unavailable" ? { reason: pin.lease.reason } : {})
    },
    audit: {
      ...audit,
      note: "each call writes an intent record before it acts and an outcome record after " +
        "it; a call whose intent record cannot be written does nothing and fails"
    },
    recording: recording === null ? null : {
      ...recording,
      note: "every pane a call names or reaches is recorded from then until it goes, as asciicast v3: its output " +
        "as tmux wrote it, its resizes, a marker per call labelled <tool> <instance>#<call> as the audit record " +
        "is numbered; no input events (what the terminal echoes is output). A pane that cannot be recorded " +
        "refuses the call"
    },
    configuration_for_new_server: configurationForNewServer(facts),
    pagers_for_new_server: {
      state: pagersForNewServer(facts),
      note: "off: the minimal configuration sets PAGER, GIT_PAGER, MANPAGER, SYSTEMD_PAGER and PSQL_PAGER to " +
        "cat in the panes' environment of a tmux server this process starts; a shell's startup files may set " +
        "their own, and servers this process did not start are left alone"
    },
    default_applied: selection.defaultApplied === null
      ? null
      : { toolsets: selection.defaultApplied.toolsets, reason: selection.defaultApplied.reason },
    toolsets: selection.toolsets,
    command_capable: commandCapable(facts),
    host_command_tools: hostCommandTools(selection.tools),
    tools: selection.tools.filter((name) => manifest[name].audience === "model").map((name) => ({
      name,
      title: manifest[name].title,
      ...capabilityRecord(manifest[name], selection.batchOperations),
      ...((table) => table === undefined ? {} : { hosts: toolHosts(table, name) })(facts.config.hosts)
    })),
    pane_observation: {
      terminal_content_tools: selection.tools.filter((name) => outputs(name).includes("terminal-content")),
      environment_tools: selection.tools.filter((name) => outputs(name).includes("process-environment")),
      note: "terminal content and environment values can carry secrets and text written " +
        "by other programs; receiving them through a tool does not make them trusted"
    },
    process_view: processVisibility(),
    ...paneViewRecord(facts),
    ...(facts.config.hosts === undefined ? {} : { hosts: hostsRecord(facts.config.hosts, selection.toolsets) }),
    not_guaranteed: [
      "tool filtering is not an OS sandbox and does not constrain other MCP tools",
      "the socket separates tmux objects; it does not restrict filesystem, process or network access",
      "annotations describe the tmux command this server issues, not hooks configured on the tmux server",
      "the lease coordinates libtmux-mcp instances; any process of the same user can still connect to the socket"
    ]
  }
}
