/**
 * A hub's host table from the flags and LIBTMUX_HOSTS: names, destinations (as --ssh takes them),
 * per-host remote commands, and the errors that name the valid set; and the tools/list it makes.
 */
import * as Result from "effect/Result"
import { assert, describe, it } from "vitest"
import { sshCommand } from "../../src/domain/clientConfig.ts"
import type { Invocation, ServerConfig } from "../../src/domain/config.ts"
import type { HostTable } from "../../src/domain/hosts.ts"
import { advertisedSchemas } from "../../src/generated/toolSchemas.ts"
import { hubLine, withHostParameter } from "../../src/hub/hostParameter.ts"
import { manifest, type ToolName } from "../../src/manifest/index.ts"
import { definitionOf } from "../../src/tools/index.ts"
import { toolEntry } from "../../src/wire/McpServer.ts"
import { invoke } from "../support/invocation.ts"

const hostsOf = (env: Record<string, string>, argv: ReadonlyArray<string>): HostTable | undefined => {
  const result = invoke(env, argv)
  if (Result.isFailure(result)) throw new Error(result.failure.message)
  return (result.success as Extract<Invocation, { kind: "serve" }>).config.hosts
}
const error = (env: Record<string, string>, argv: ReadonlyArray<string>): string => {
  const result = invoke(env, argv)
  assert.isTrue(Result.isFailure(result))
  return Result.isFailure(result) ? result.failure.message : ""
}

describe("the host table", () => {
  it("is absent without --host: the server is what it was", () => {
    const result = invoke({}, [])
    const config = (Result.getOrThrow(result) as { config: ServerConfig }).config
    assert.isUndefined(config.hosts)
    assert.notProperty(config, "hosts")
  })

  it("takes repeated --host, per-host --remote-node/--remote-bin beside shared ones, and --ssh-config", () => {
    const table = hostsOf({}, [
      "--host",
      "build=me@build-box",
      "--host=gpu=gpu.lan:2222",
      "--remote-bin",
      "/opt/libtmux-mcp/bin.js",
      "--remote-node",
      "gpu=/usr/local/bin/node",
      "--ssh-config",
      "/etc/ssh/hub_config"
    ])!
    assert.deepStrictEqual(table, {
      remotes: [
        { name: "build", destination: "me@build-box", port: undefined, command: ["node", "/opt/libtmux-mcp/bin.js"] },
        { name: "gpu", destination: "gpu.lan", port: 2222, command: ["/usr/local/bin/node", "/opt/libtmux-mcp/bin.js"] }
      ],
      local: true,
      defaultHost: "local",
      sshConfig: "/etc/ssh/hub_config"
    })
  })

  it("reads LIBTMUX_HOSTS as a comma list; --no-local makes the first host the default", () => {
    const table = hostsOf({ LIBTMUX_HOSTS: "a=alpha,b=beta" }, ["--no-local"])!
    assert.deepStrictEqual(table.remotes.map((host) => [host.name, host.destination, host.command]), [
      ["a", "alpha", ["libtmux-mcp"]],
      ["b", "beta", ["libtmux-mcp"]]
    ])
    assert.isFalse(table.local)
    assert.strictEqual(table.defaultHost, "a")
    // A flag beats its variable.
    assert.deepStrictEqual(hostsOf({ LIBTMUX_HOSTS: "a=alpha" }, ["--host", "c=gamma"])!.remotes.map((h) => h.name), [
      "c"
    ])
  })

  it("refuses destinations ssh would read as options, bad names, repeats and strays, naming what is valid", () => {
    assert.include(error({}, ["--host", "x=-oProxyCommand=sh"]), "is not valid; use [user@]host[:port]")
    assert.include(error({}, ["--host", "x=host;rm"]), "is not valid; use [user@]host[:port]")
    assert.include(error({}, ["--host", "x=host:99999"]), "is not valid; use [user@]host[:port]")
    assert.include(error({}, ["--host", "build-box"]), "use NAME=DESTINATION")
    assert.include(error({}, ["--host", "Build=box"]), "lower-case letters")
    assert.include(error({}, ["--host", "local=box"]), "not local, which is this machine")
    assert.include(error({}, ["--host", "a=x", "--host", "a=y"]), "--host a is declared twice")
    assert.include(error({}, ["--host", "a=x", "--remote-bin", "b=/bin.js"]), "names no declared host; declared: a")
    assert.include(error({}, ["--host", "a=x", "--remote-bin", "-x"]), "it starts with -")
    assert.include(error({}, ["--no-local"]), "--no-local goes with --host NAME=DESTINATION")
    assert.include(error({}, ["--remote-node", "/usr/bin/node"]), "--remote-node goes with --host")
  })

  it("builds each host's ssh -T command as --print-config --ssh does", () => {
    const table = hostsOf({}, ["--host", "gpu=me@gpu:2222", "--ssh-config", "/etc/hub", "--remote-bin", "/b.js"])!
    const host = table.remotes[0]!
    const { args } = sshCommand({ ...host, sshConfig: table.sshConfig }, { LIBTMUX_TOOLSETS: "inspect" })
    assert.deepStrictEqual(args, [
      "-T",
      "-o",
      "BatchMode=yes",
      "-o",
      "ServerAliveInterval=15",
      "-o",
      "ServerAliveCountMax=3",
      "-F",
      "/etc/hub",
      "-p",
      "2222",
      "--",
      "me@gpu",
      "env 'LIBTMUX_TOOLSETS=inspect' 'node' '/b.js'"
    ])
  })
})

describe("a hub's tools/list", () => {
  const table: HostTable = {
    remotes: [
      { name: "build", destination: "build", port: undefined, command: ["libtmux-mcp"] },
      { name: "gpu", destination: "gpu", port: undefined, command: ["libtmux-mcp"] }
    ],
    local: true,
    defaultHost: "local",
    sshConfig: undefined
  }
  const entries = (Object.keys(manifest) as Array<ToolName>).map((name) =>
    toolEntry(definitionOf(name)!, [], advertisedSchemas)
  )

  it("gives every tool host; required on execute and teardown tools only", () => {
    for (const entry of entries) {
      const hub = withHostParameter(table, entry)
      assert.deepStrictEqual(hub.inputSchema.properties?.host, { type: "string", enum: ["local", "build", "gpu"] })
      const toolset = manifest[entry.name as ToolName].toolset
      assert.strictEqual(
        (hub.inputSchema.required ?? []).includes("host"),
        toolset === "execute" || toolset === "teardown",
        entry.name
      )
      // The tool's own parameters are untouched.
      assert.deepStrictEqual(
        { ...hub.inputSchema.properties, host: undefined },
        { ...entry.inputSchema.properties, host: undefined }
      )
    }
  })

  it("with one host, host is optional everywhere", () => {
    const one: HostTable = { ...table, remotes: [table.remotes[0]!], local: false, defaultHost: "build" }
    for (const entry of entries) assert.notInclude(withHostParameter(one, entry).inputSchema.required ?? [], "host")
    assert.include(hubLine(one), "absent: build")
  })

  it("grows the model-visible list by at most 3 KB with two hosts", () => {
    const size = (tools: ReadonlyArray<unknown>) => Buffer.byteLength(JSON.stringify(tools))
    const growth = size(entries.map((entry) => withHostParameter(table, entry))) - size(entries)
    assert.isAtMost(growth, 3 * 1024, `grew by ${growth} bytes`)
  })
})
