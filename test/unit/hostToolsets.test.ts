/**
 * Per-host toolsets (`--host-toolsets`, LIBTMUX_HOST_TOOLSETS): parsed against the declared hosts and
 * the toolsets, checked against the hub's selection (never widening it), and what they make of the
 * hub's surface: each tool's host enum, where host is required, the refusal of a host without the
 * tool, and the selection settings a narrowed host's server starts with.
 */
import * as Result from "effect/Result"
import { assert, describe, it } from "vitest"
import type { Invocation } from "../../src/domain/config.ts"
import type { HostTable } from "../../src/domain/hosts.ts"
import { hostSelectionSettings, narrowSelection, withToolsets } from "../../src/domain/hostToolsets.ts"
import { resolveSelection, type Selection } from "../../src/domain/selection.ts"
import { advertisedSchemas } from "../../src/generated/toolSchemas.ts"
import { hostRefusal, hubLine, toolHosts, withHostParameter } from "../../src/hub/hostParameter.ts"
import { manifest, type ToolName, toolNames, toolsOf } from "../../src/manifest/index.ts"
import { definitionOf } from "../../src/tools/index.ts"
import { toolEntry } from "../../src/wire/McpServer.ts"
import { invoke } from "../support/invocation.ts"

const hostsOf = (env: Record<string, string>, argv: ReadonlyArray<string>): HostTable => {
  const result = invoke(env, argv)
  if (Result.isFailure(result)) throw new Error(result.failure.message)
  return (result.success as Extract<Invocation, { kind: "serve" }>).config.hosts!
}
const error = (env: Record<string, string>, argv: ReadonlyArray<string>): string => {
  const result = invoke(env, argv)
  assert.isTrue(Result.isFailure(result), argv.join(" "))
  return Result.isFailure(result) ? result.failure.message : ""
}
const two = ["--host", "prod=prod.lan", "--host", "gpu=gpu.lan"]

/** The selection of a server whose endpoint is explicitly configured (no teardown by default). */
const selected = (toolsets: string | undefined, tools?: string, excludeTools?: string): Selection =>
  Result.getOrThrow(resolveSelection(
    { toolsets, tools, excludeTools },
    { socketExplicit: true, tmuxConfig: "minimal", serverState: "absent", provenance: "none" },
    new Set(toolNames)
  ))

describe("--host-toolsets", () => {
  it("is absent without the flag, so the host table is what it was", () => {
    assert.notProperty(hostsOf({}, two), "toolsets")
  })

  it("reads repeated flags and the variable's comma list alike; local may be narrowed too", () => {
    const flags = hostsOf({}, [...two, "--host-toolsets", "prod=inspect", "--host-toolsets=gpu=inspect,execute"])
    assert.deepStrictEqual(flags.toolsets, { prod: ["inspect"], gpu: ["inspect", "execute"] })
    const variable = hostsOf({ LIBTMUX_HOST_TOOLSETS: "prod=inspect, gpu=inspect,execute" }, two)
    assert.deepStrictEqual(variable.toolsets, flags.toolsets)
    // A flag beats its variable.
    assert.deepStrictEqual(
      hostsOf({ LIBTMUX_HOST_TOOLSETS: "prod=execute" }, [...two, "--host-toolsets", "local=inspect"]).toolsets,
      { local: ["inspect"] }
    )
  })

  it("refuses unknown hosts and toolsets, repeats, empty segments and strays, naming what is valid", () => {
    assert.include(error({}, [...two, "--host-toolsets", "dev=inspect"]), "hosts: local, prod, gpu")
    assert.include(
      error({}, [...two, "--no-local", "--host-toolsets", "local=inspect"]),
      "\"local\" is not a host of this hub; hosts: prod, gpu"
    )
    assert.include(
      error({}, [...two, "--host-toolsets", "prod=inspct"]),
      "unknown toolset \"inspct\"; valid toolsets: inspect, manage, execute, teardown"
    )
    assert.include(
      error({}, [...two, "--host-toolsets", "prod=inspect", "--host-toolsets", "prod=execute"]),
      "prod is given twice"
    )
    assert.include(error({}, [...two, "--host-toolsets", "prod=inspect,,execute"]), "an empty toolset")
    assert.include(error({}, [...two, "--host-toolsets", "prod="]), "an empty toolset")
    assert.include(error({}, [...two, "--host-toolsets", "inspect"]), "use NAME=TOOLSET[,TOOLSET]")
    assert.include(error({}, ["--host-toolsets", "prod=inspect"]), "--host-toolsets goes with --host NAME=DESTINATION")
  })
})

describe("the hub's selection under per-host toolsets", () => {
  it("never widens: a toolset the selection has no tool of stops startup, naming those it has", () => {
    const refused = narrowSelection(selected("inspect,manage"), ["local", "prod"], { prod: ["inspect", "execute"] })
    assert.isTrue(Result.isFailure(refused))
    assert.include(
      Result.isFailure(refused) ? refused.failure.message : "",
      "names execute, which this server's selection has no tool of: a host is narrowed, never widened; the " +
        "selection's toolsets: inspect, manage"
    )
    // A tool named on its own counts: its toolset is the selection's.
    const named = narrowSelection(selected("inspect", "send_keys"), ["local", "prod"], { prod: ["execute"] })
    assert.isTrue(Result.isSuccess(named))
  })

  it("keeps every tool some host offers, and leaves out a tool no host offers (--no-local)", () => {
    const hub = selected("inspect,manage,execute")
    const kept = Result.getOrThrow(narrowSelection(hub, ["local", "prod"], { prod: ["inspect"] }))
    assert.deepStrictEqual(kept.tools, hub.tools)
    const remote = Result.getOrThrow(narrowSelection(hub, ["prod", "gpu"], { prod: ["inspect"], gpu: ["inspect"] }))
    assert.deepStrictEqual(remote.tools, hub.tools.filter((name) => manifest[name].toolset === "inspect"))
    assert.deepStrictEqual(remote.toolsets, ["inspect"])
    assert.deepStrictEqual(remote.batchOperations, hub.batchOperations)
  })

  it("starts a narrowed host's server with exactly the hub's tools of its toolsets", () => {
    const hub = selected(undefined, "kill_pane,send_keys,capture_pane", "show_hooks")
    const settings = hostSelectionSettings(hub, {
      tools: "kill_pane,send_keys,capture_pane",
      excludeTools: "show_hooks"
    }, [
      "inspect",
      "teardown"
    ])
    assert.deepStrictEqual(settings, {
      LIBTMUX_TOOLSETS: "inspect",
      LIBTMUX_TOOLS: "kill_pane,capture_pane",
      LIBTMUX_EXCLUDE_TOOLS: "show_hooks"
    })
    // What the host resolves from them is the hub's tools of those toolsets.
    const host = selected(settings.LIBTMUX_TOOLSETS, settings.LIBTMUX_TOOLS, settings.LIBTMUX_EXCLUDE_TOOLS)
    assert.deepStrictEqual(
      host.tools,
      hub.tools.filter((name) => ["inspect", "teardown"].includes(manifest[name].toolset))
    )
    assert.deepStrictEqual(host.batchOperations, hub.batchOperations)
  })

  it("shows each host's toolsets: its narrowing, or the hub's", () => {
    assert.deepStrictEqual(
      withToolsets({ prod: ["inspect"] }, ["inspect", "execute"], [{ host: "local" }, { host: "prod" }]),
      [{ host: "local", toolsets: ["inspect", "execute"] }, { host: "prod", toolsets: ["inspect"] }]
    )
  })
})

describe("a hub's tools/list with narrowed hosts", () => {
  const table = hostsOf({}, [...two, "--host-toolsets", "prod=inspect", "--host-toolsets", "gpu=inspect,execute"])
  const entries = (Object.keys(manifest) as Array<ToolName>).map((name) =>
    toolEntry(definitionOf(name)!, [], advertisedSchemas)
  )
  const enumOf = (hub: ReturnType<typeof withHostParameter>) =>
    (hub.inputSchema.properties!.host as { enum: Array<string> }).enum

  it("lists, for each tool, only the hosts that offer it", () => {
    for (const entry of entries) {
      const toolset = manifest[entry.name as ToolName].toolset
      assert.deepStrictEqual(
        enumOf(withHostParameter(table, entry)),
        toolset === "inspect" ? ["local", "prod", "gpu"] : toolset === "execute" ? ["local", "gpu"] : ["local"],
        entry.name
      )
    }
    assert.include(hubLine(table), "Some hosts offer fewer tools: each tool's host lists the hosts that offer it.")
  })

  it("requires host on a tool the default host does not offer, and says where it is", () => {
    const remote = hostsOf({}, [...two, "--no-local", "--host-toolsets", "prod=inspect"])
    const send = entries.find((entry) => entry.name === "create_session")!
    assert.deepStrictEqual(enumOf(withHostParameter(remote, send)), ["gpu"])
    assert.include(withHostParameter(remote, send).inputSchema.required ?? [], "host")
    const capture = entries.find((entry) => entry.name === "capture_pane")!
    assert.notInclude(withHostParameter(remote, capture).inputSchema.required ?? [], "host")
    const missing = hostRefusal(remote, "create_session", undefined)
    assert.strictEqual(missing?._tag, "InputInvalid")
    assert.include(
      missing?.message ?? "",
      "create_session is not offered on the default host prod; hosts that offer it: gpu"
    )
  })

  it("refuses a host narrowed away from the tool with HostToolMissing naming the hosts that offer it", () => {
    const refusal = hostRefusal(table, "send_keys", "prod")
    assert.strictEqual(refusal?._tag, "HostToolMissing")
    assert.include(
      refusal?.message ?? "",
      "host prod offers only the inspect toolset(s) (--host-toolsets), not send_keys"
    )
    assert.include(refusal?.message ?? "", "nothing was sent there; hosts that offer it: local, gpu")
    assert.isUndefined(hostRefusal(table, "send_keys", "gpu"))
    assert.isUndefined(hostRefusal(table, "capture_pane", undefined))
    assert.strictEqual(hostRefusal(table, "send_keys", "nowhere")?._tag, "InputInvalid")
    for (const name of toolsOf("teardown")) assert.deepStrictEqual(toolHosts(table, name), ["local"])
    // This machine narrowed: its calls are refused here as a remote's are.
    const here = hostsOf({}, [...two, "--host-toolsets", "local=inspect"])
    assert.strictEqual(hostRefusal(here, "send_keys", "local")?._tag, "HostToolMissing")
    assert.include(hostRefusal(here, "send_keys", undefined)?.message ?? "", "not offered on the default host local")
  })
})
