/**
 * A hub whose one remote host (a real OpenSSH server on a loopback port, with its own HOME and tmux
 * folder) is narrowed with --host-toolsets: each tool's host enum, a call to the host without the
 * tool refused and never sent (the host's audit has no record of it), the host's own server started
 * with the narrowed selection, the toolsets in get_server_info and the capabilities document; a
 * narrowing beyond the hub's selection refused at startup; and the entry `--print-config` prints for
 * the hub, started as a client would start it, serving through the sshd, with its printed checks run.
 */
import { Client } from "@modelcontextprotocol/sdk/client/index.js"
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js"
import type { CallToolResult } from "@modelcontextprotocol/sdk/types.js"
import { existsSync, readFileSync } from "node:fs"
import { afterAll, assert, beforeAll, describe, it } from "vitest"
import { manifest, type ToolName } from "../../src/manifest/index.ts"
import { type HostMachine, startHostMachines, stopHostMachines } from "../support/hubHosts.ts"
import {
  binPath,
  call,
  commandToExit,
  connect,
  type Connected,
  runToExit,
  serverEnv,
  structured,
  textOf
} from "../support/mcp.ts"
import { sshdAvailable } from "../support/sshd.ts"
import { makeWorld, type TmuxWorld } from "../support/tmux.ts"

// CI installs openssh-server: there the test must run.
const skip = !sshdAvailable && process.env.CI !== "true"

let local: TmuxWorld | undefined
let machines: Array<HostMachine> = []
let hub: Connected | undefined
/** The flags that reach alpha through the test's sshd: its alias in a config of the hub's, its server's wrapper. */
let reach: Array<string> = []

const timeout = { timeout: 60_000 }
const auditOfAlpha = (): Array<Record<string, unknown>> => {
  const path = machines[0]!.auditPath
  return existsSync(path)
    ? readFileSync(path, "utf8").trim().split("\n").map((line) => JSON.parse(line) as Record<string, unknown>)
    : []
}
const errorTag = (result: CallToolResult) => (result._meta as Record<string, unknown>)["com.git-pull.libtmux-mcp/error"]

beforeAll(async () => {
  if (skip) return
  local = makeWorld("hubset")
  const started = await startHostMachines("hubset", local, ["alpha"])
  machines = started.machines
  reach = ["--host", "alpha=alpha", ...started.reach]
  hub = await connect(local, {}, [...reach, "--toolsets", "inspect,execute", "--host-toolsets", "alpha=inspect"])
}, 90_000)

afterAll(async () => {
  await hub?.close().catch(() => undefined)
  await stopHostMachines(machines)
  for (const machine of machines) machine.world.dispose()
  local?.dispose()
}, 60_000)

describe.skipIf(skip)("a hub with a host narrowed by --host-toolsets", () => {
  it("lists alpha only on the tools it offers, and requires host where the default is not enough", async () => {
    const { tools } = await hub!.client.listTools()
    for (const tool of tools) {
      const toolset = manifest[tool.name as ToolName].toolset
      assert.deepStrictEqual(
        (tool.inputSchema.properties?.host as { enum?: Array<string> } | undefined)?.enum,
        toolset === "inspect" ? ["local", "alpha"] : ["local"],
        tool.name
      )
      assert.strictEqual((tool.inputSchema.required ?? []).includes("host"), toolset === "execute", tool.name)
    }
    assert.include(hub!.client.getInstructions() ?? "", "Some hosts offer fewer tools")
  })

  it("starts alpha's server with the narrowed selection and shows each host's toolsets", async () => {
    const info = structured(await call(hub!, "get_server_info", { host: "alpha" }, timeout))
    assert.strictEqual(info.host, "alpha")
    const states = info.hosts as Array<{ host: string; state: string; tools?: number; toolsets: Array<string> }>
    const inspectTools = (Object.keys(manifest) as Array<ToolName>).filter((name) =>
      manifest[name].toolset === "inspect"
    )
    assert.deepStrictEqual(states.map((state) => [state.host, state.state, state.toolsets]), [
      ["local", "local", ["inspect", "execute"]],
      ["alpha", "connected", ["inspect"]]
    ])
    // alpha's own tools/list: the hub's inspect tools, no execute tool.
    assert.strictEqual(states[1]!.tools, inspectTools.length)
    const document = await hub!.client.readResource({ uri: "tmux://capabilities" })
    const capabilities = JSON.parse((document.contents[0] as { text: string }).text)
    assert.deepStrictEqual(capabilities.hosts.toolsets, { local: ["inspect", "execute"], alpha: ["inspect"] })
    const records = new Map(
      (capabilities.tools as Array<{ name: string; hosts: Array<string> }>).map((tool) => [tool.name, tool.hosts])
    )
    assert.deepStrictEqual(records.get("capture_pane"), ["local", "alpha"])
    assert.deepStrictEqual(records.get("send_keys"), ["local"])
  })

  it("refuses an execute tool on alpha with HostToolMissing, and sends nothing there", async () => {
    const before = auditOfAlpha().length
    const refused = await call(hub!, "send_keys", { host: "alpha", pane_id: "%0", keys: "x" }, timeout)
    assert.isTrue(refused.isError)
    assert.strictEqual(errorTag(refused), "HostToolMissing")
    assert.include(textOf(refused), "host alpha offers only the inspect toolset(s) (--host-toolsets), not send_keys")
    assert.include(textOf(refused), "hosts that offer it: local")
    // A read after it goes through: alpha's audit then holds that read and nothing of send_keys.
    structured(await call(hub!, "list_sessions", { host: "alpha" }, timeout))
    const after = auditOfAlpha().slice(before)
    assert.isTrue(after.some((line) => line.tool === "list_sessions"), JSON.stringify(after))
    assert.isFalse(auditOfAlpha().some((line) => line.tool === "send_keys"))
    // The hub records the refusal on its own audit, naming the host.
    const hubLines = hub!.stderr().split("\n").filter((line) => line.includes("\"send_keys\""))
    assert.isTrue(hubLines.some((line) => line.includes("\"host\":\"alpha\"")), hubLines.join("\n"))
  })

  it("stops at startup with a host narrowed to a toolset the hub does not select, naming its own", async () => {
    const refused = await runToExit(local!, {}, [...reach, "--toolsets", "inspect", "--host-toolsets", "alpha=execute"])
    assert.strictEqual(refused.code, 1, refused.stderr)
    assert.include(refused.stderr, "--host-toolsets alpha=execute names execute")
    assert.include(refused.stderr, "the selection's toolsets: inspect")
  })
})

describe.skipIf(skip)("--print-config for a hub", () => {
  it("prints an entry that, started as the client starts it, serves through the host; its checks succeed", async () => {
    const printed = await commandToExit(process.execPath, [
      binPath,
      "--print-config",
      "cursor",
      ...reach,
      "--no-local",
      "--toolsets",
      "inspect"
    ], { env: serverEnv(local!), cwd: local!.dir })
    assert.strictEqual(printed.code, 0, printed.stderr)
    const entry = JSON.parse(printed.stdout).mcpServers["libtmux-mcp"] as {
      command: string
      args: Array<string>
      env: Record<string, string>
    }
    assert.deepStrictEqual(entry.env, { LIBTMUX_HOSTS: "alpha=alpha", LIBTMUX_TOOLSETS: "inspect" })
    const transport = new StdioClientTransport({
      command: entry.command,
      args: entry.args,
      env: { ...serverEnv(local!), ...entry.env },
      cwd: "/",
      stderr: "pipe"
    })
    const client = new Client({ name: "libtmux-mcp-tests", version: "0.0.0" })
    await client.connect(transport)
    try {
      // With --no-local alpha is the default host.
      const listed =
        (await client.callTool({ name: "list_sessions", arguments: {} }, undefined, timeout)) as CallToolResult
      assert.strictEqual(structured(listed).host, "alpha")
    } finally {
      await client.close()
    }
    // The checks printed on stderr, run as a person would paste them (alpha's "Node" here is the wrapper's sh).
    const check = (what: string) => {
      const line = printed.stderr.split("\n").find((note) => note.startsWith(`libtmux-mcp: alpha ${what}`))
      assert.isDefined(line, printed.stderr)
      return commandToExit("sh", ["-c", line!.replace(/^libtmux-mcp: alpha [^:]+: /u, "")], {
        env: serverEnv(local!),
        cwd: local!.dir
      })
    }
    const reachable = await check("reachable")
    assert.strictEqual(reachable.code, 0, reachable.stderr)
    const version = await check("server")
    assert.strictEqual(version.code, 0, version.stderr)
    assert.match(version.stdout, /^libtmux-mcp \d+\.\d+\.\d+/u)
  }, 60_000)
})
