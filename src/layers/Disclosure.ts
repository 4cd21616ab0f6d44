/**
 * What the server says about itself at startup: the one-line record on stderr, the attach
 * command a person uses to watch, and the instructions the agent reads. All generated from the
 * effective configuration, never static strings.
 */
import { recordPair, shellQuote } from "../domain/quote.ts"
import { formatSelector } from "../domain/socket.ts"
import { manifest } from "../manifest/index.ts"
import { version } from "../version.ts"
import type { StartupFacts } from "./Startup.ts"

/** `tmux -N -S <path> attach`: `-N` so watching before the first session never starts a server. */
export const attachCommand = (facts: StartupFacts): string => `tmux -N -S ${shellQuote(facts.pin.resolvedPath)} attach`

/** Whether any enabled tool can start a process or deliver input to one. */
export const commandCapable = (facts: StartupFacts): boolean =>
  facts.selection.tools.some((name) => manifest[name].reach !== "none" || manifest[name].amplifiesFutureInput)

/** The startup record: one line on stderr when ready. */
export const readyLine = (facts: StartupFacts): string => {
  const { pin, selection } = facts
  const pairs: Array<[string, string | number | boolean]> = [
    ["version", version],
    ["socket", formatSelector(pin.selector)],
    ["socket_form", pin.selector.form],
    ["resolved_socket_path", pin.resolvedPath],
    ["server_state", pin.serverStateAtStartup],
    ["configuration_provenance", pin.serverStateAtStartup === "existing" ? "unknown" : "none"],
    ["default_applied", selection.defaultApplied === null ? "none" : selection.defaultApplied.toolsets.join(",")],
    ["default_reason", selection.defaultApplied?.reason ?? "LIBTMUX_TOOLSETS given"],
    ["toolsets", selection.toolsets.join(",")],
    ["tools", selection.tools.length],
    ["command_capable", commandCapable(facts)],
    ["host_command_tools", 0],
    ["attach_command", attachCommand(facts)]
  ]
  return ["libtmux-mcp ready", ...pairs.map(([key, value]) => recordPair(key, value))].join(" ")
}

/** The server instructions the agent reads at initialization. */
export const instructions = (facts: StartupFacts): string =>
  [
    `These tools operate on tmux socket ${formatSelector(facts.pin.selector)} (${facts.pin.resolvedPath}) and no other.`,
    `When you start work, tell the user they can watch with: ${attachCommand(facts)}`,
    `Enabled toolsets: ${facts.selection.toolsets.join(", ") || "none (individual tools only)"}.`,
    "Execute tools run commands with the user's permissions. Tool filtering is not an OS sandbox and does not constrain other MCP tools.",
    "Target objects by the IDs the list tools return ($1 sessions, @2 windows, %3 panes); names match exactly."
  ].join("\n")
