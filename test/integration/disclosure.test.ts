/**
 * What the server says about itself, from synthetic startup facts: the instructions' byte budget
 * for every toolset combination and caller context, the attach command's quoting, the startup
 * record and the capabilities document.
 */
import { execFileSync } from "node:child_process"
import { assert, describe, it } from "vitest"
import { recordPair, shellQuote } from "../../src/domain/quote.ts"
import { manifest, modelToolNames, toolNames, type Toolset, toolsets } from "../../src/manifest/index.ts"
import type { StartupFacts } from "../../src/startup/Startup.ts"
import {
  attachCommand,
  capabilitiesDocument,
  instructions,
  instructionsBudget,
  readyLine,
  warningLines
} from "../../src/wire/Disclosure.ts"
import { testConfig } from "../support/config.ts"

const longPath = `/${"d".repeat(60)}/tmux-4294967294/${"s".repeat(40)}`.slice(0, 107)

const facts = (chosen: ReadonlyArray<Toolset>, overrides: Partial<StartupFacts> = {}): StartupFacts => ({
  config: testConfig({
    socket: { form: "path", path: longPath },
    socketExplicit: true,
    selection: { toolsets: chosen.join(","), tools: undefined, excludeTools: undefined }
  }),
  selection: {
    toolsets: chosen,
    tools: toolNames.filter((name) => chosen.includes(manifest[name].toolset)),
    batchOperations: chosen.includes("inspect") ? toolNames.filter((name) => manifest[name].batchEligible) : [],
    defaultApplied: null
  },
  pin: {
    selector: { form: "path", path: longPath },
    flags: ["-S", longPath],
    resolvedPath: longPath,
    place: undefined,
    serverStateAtStartup: "existing",
    provenanceAtStartup: "unknown",
    provenanceRecord: undefined,
    hiddenAtStartup: [],
    lease: { state: "held" },
    newServerConfig: { flags: [], fd: undefined, label: "user" },
    environment: {}
  },
  caller: { paneId: undefined, socketPath: undefined, onPinnedSocket: false },
  tmuxVersion: "tmux 3.3a",
  tmuxPath: "/usr/bin/tmux",
  audit: { kind: "stderr", fallbackPath: "/home/u/.local/state/libtmux-mcp/audit-1.jsonl" },
  ...overrides
})

const watchSsh = { destination: "me@build-box", port: 2222, sshConfig: "/home/me/.ssh/config" }

const callers: ReadonlyArray<StartupFacts["caller"]> = [
  { paneId: undefined, socketPath: undefined, onPinnedSocket: false },
  { paneId: "%123456", socketPath: longPath, onPinnedSocket: true },
  { paneId: "%123456", socketPath: `/${"o".repeat(105)}`, onPinnedSocket: false }
]

describe("instructions", () => {
  it(
    `stay within ${instructionsBudget} bytes for all sixteen toolset ` +
      "combinations, inside and outside tmux, with a maximal socket path",
    () => {
      for (let mask = 0; mask < 16; mask++) {
        const chosen = toolsets.filter((_, i) => (mask & (1 << i)) !== 0)
        for (const caller of callers) {
          const shared = facts(chosen, { caller })
          const text = instructions({
            ...shared,
            // Reached by ssh: the longest instructions say what ssh's exit code 255 means.
            config: { ...shared.config, watchSsh },
            pin: { ...shared.pin, lease: { state: "shared", holder: "pid 4294967295 (libtmux-mcp 0.1.0)" } }
          })
          assert.isAtMost(
            Buffer.byteLength(text, "utf8"),
            instructionsBudget,
            `${chosen.join(",")} ${JSON.stringify(caller)}`
          )
        }
      }
    }
  )

  it("name the socket, the attach command and the enabled toolsets, and say what filtering is not", () => {
    const text = instructions(facts(["inspect", "execute"]))
    assert.include(text, `path:${longPath}`)
    assert.include(text, attachCommand(facts(["inspect"])))
    assert.include(text, "Enabled toolsets: inspect, execute.")
    assert.include(text, "not an OS sandbox and does not constrain other MCP tools")
    assert.include(text, "with the user's permissions")
  })

  it("say what ssh's 255 means when watch_command runs through ssh, and only then", () => {
    const through = facts(["execute"])
    const line = "Here watch_command runs through ssh: its exit code 255 means the link was lost; run it again."
    assert.include(instructions({ ...through, config: { ...through.config, watchSsh } }), line)
    assert.notInclude(instructions(through), "255")
  })

  it("name a hub's hosts and default; leave out this machine's socket when it is not a host", () => {
    const base = facts(["inspect", "execute"])
    const remotes = [{ name: "build", destination: "build", port: undefined, command: ["libtmux-mcp"] }]
    const hub = (local: boolean) =>
      instructions({
        ...base,
        config: {
          ...base.config,
          hosts: { remotes, local, defaultHost: local ? "local" : "build", sshConfig: undefined }
        }
      })
    assert.include(hub(true), "Hosts: local, build (local is this machine); every tool takes host (absent: local")
    assert.include(hub(true), "On local, these tools operate on tmux socket")
    assert.include(hub(false), "Hosts: build; every tool takes host (absent: build)")
    assert.notInclude(hub(false), "tmux socket")
    assert.notInclude(hub(false), "watch with")
    assert.notInclude(instructions(base), "Hosts:")
  })

  it("list a hub's hosts in the capabilities document as its table declares them, and nothing without hosts", () => {
    const base = facts(["inspect"])
    const remotes = [{ name: "build", destination: "me@build", port: 2222, command: ["libtmux-mcp"] }]
    const hosts = { remotes, local: true, defaultHost: "local", sshConfig: undefined }
    const document = capabilitiesDocument({ ...base, config: { ...base.config, hosts } })
    assert.deepInclude(document.hosts!, {
      default_host: "local",
      local: true,
      remote: [{ name: "build", destination: "me@build", port: 2222 }]
    })
    assert.notProperty(capabilitiesDocument(base), "hosts")
  })

  it("show each host's toolsets and each tool's hosts under --host-toolsets, and no hosts field without a hub", () => {
    const base = facts(["inspect", "execute"])
    const remotes = [{ name: "build", destination: "build", port: undefined, command: ["libtmux-mcp"] }]
    const hosts = { remotes, local: true, defaultHost: "local", sshConfig: undefined, toolsets: { build: ["inspect"] } }
    const document = capabilitiesDocument({ ...base, config: { ...base.config, hosts } as typeof base.config })
    assert.deepStrictEqual(document.hosts!.toolsets, { local: ["inspect", "execute"], build: ["inspect"] })
    const byName = new Map(document.tools.map((tool) => [tool.name, tool as { hosts?: ReadonlyArray<string> }]))
    assert.deepStrictEqual(byName.get("capture_pane")!.hosts, ["local", "build"])
    assert.deepStrictEqual(byName.get("send_keys")!.hosts, ["local"])
    assert.notProperty(capabilitiesDocument(base).tools[0]!, "hosts")
  })

  it("only mention execution when an enabled tool can start a process or deliver input", () => {
    assert.notInclude(instructions(facts(["inspect"])), "user's permissions")
  })

  it("say when the caller's pane is on this socket, and when it is on another server these tools cannot reach", () => {
    assert.include(instructions(facts(["inspect"], { caller: callers[1]! })), "is_caller=true")
    assert.include(instructions(facts(["inspect"], { caller: callers[2]! })), "cannot reach that pane")
  })

  it("route to run_shell_command and send_keys_batch only when they are enabled", () => {
    assert.include(instructions(facts(toolsets)), "run_shell_command folds")
    assert.include(instructions(facts(toolsets)), "send_keys_batch folds")
    const without = facts(toolsets)
    const narrowed = {
      ...without,
      selection: {
        ...without.selection,
        tools: without.selection.tools.filter((name) => name !== "run_shell_command" && name !== "send_keys_batch")
      }
    }
    for (const name of ["run_shell_command", "send_keys_batch"]) assert.notInclude(instructions(narrowed), name)
  })
})

describe("attach command", () => {
  it("quotes a socket path holding spaces and quotes so that a POSIX shell receives it intact", () => {
    const path = `/tmp/it's a "dir"/tmux-0/libtmux-mcp`
    const command = attachCommand(facts(["inspect"], { pin: { ...facts([]).pin, resolvedPath: path } }))
    assert.isTrue(command.startsWith("tmux -N -S "))
    const echoed = execFileSync("sh", ["-c", command.replace(/^tmux -N -S /u, "printf %s ").replace(/ attach$/u, "")], {
      encoding: "utf8"
    })
    assert.strictEqual(echoed, path)
  })

  it("leaves a plain path unquoted", () => {
    assert.strictEqual(shellQuote("/tmp/tmux-0/libtmux-mcp"), "/tmp/tmux-0/libtmux-mcp")
  })
})

describe("startup record", () => {
  it("is one line of key=value pairs with host_command_tools=0, quoting values with spaces", () => {
    const line = readyLine(facts(["inspect"]))
    assert.notInclude(line, "\n")
    assert.isTrue(line.startsWith("libtmux-mcp ready version="))
    assert.include(line, "host_command_tools=0")
    assert.include(line, "command_capable=false")
    assert.include(line, `attach_command="tmux -N -S ${longPath} attach"`)
    assert.strictEqual(recordPair("k", "a b"), `k="a b"`)
    assert.strictEqual(recordPair("k", ""), `k=""`)
  })

  it("says whether a server it starts keeps its panes from paging: only the minimal configuration does", () => {
    const withConfig = (tmuxConfig: StartupFacts["config"]["tmuxConfig"], form: "path" | "inherit" = "path") => {
      const base = facts(["inspect"])
      const socket = form === "inherit" ? { form } as const : base.config.socket
      return { ...base, config: { ...base.config, tmuxConfig, socket } }
    }
    assert.include(readyLine(withConfig({ kind: "minimal" })), "pagers_for_new_server=off")
    assert.include(readyLine(withConfig({ kind: "user" })), "pagers_for_new_server=unchanged")
    assert.include(readyLine(withConfig({ kind: "minimal" }, "inherit")), "pagers_for_new_server=unchanged")
    assert.strictEqual(capabilitiesDocument(withConfig({ kind: "minimal" })).pagers_for_new_server.state, "off")
  })

  it("adds a separate warning line only for an inherited socket", () => {
    assert.deepStrictEqual(warningLines(facts(["inspect"])), [])
    const inherited = facts(["inspect"], { pin: { ...facts([]).pin, selector: { form: "inherit" } } })
    assert.include(warningLines(inherited)[0], "socket=inherit")
    const shared = facts(["inspect"], { pin: { ...facts([]).pin, lease: { state: "shared", holder: "pid 42" } } })
    assert.include(warningLines(shared)[0], "lease=shared")
  })
})

describe("capabilities document", () => {
  it("reports the startup-filtered surface, never the whole catalogue", () => {
    const document = capabilitiesDocument(facts(["inspect"]))
    assert.deepStrictEqual(
      document.tools.map((tool) => tool.name),
      modelToolNames.filter((name) => manifest[name].toolset === "inspect")
    )
    // The pane view's own tool is described beside the list, with to whom it is offered.
    assert.deepStrictEqual(document.pane_view?.tools.map((tool) => tool.name), ["view_pane"])
    assert.include(document.pane_view?.offered_to, "io.modelcontextprotocol/ui")
    assert.strictEqual(capabilitiesDocument(facts(["manage"])).pane_view, undefined)
    assert.strictEqual(document.host_command_tools, 0)
    assert.strictEqual(document.configuration_provenance, "unknown")
    assert.deepStrictEqual(document.pane_observation.environment_tools, ["show_environment"])
  })
})
