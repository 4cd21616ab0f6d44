/**
 * The rules of a hub's links, pure: which calls are sent once more when a session drops (reads,
 * never wait_for_text, never a mutation), the back-off after failed connects, the keep-alive
 * interval from LIBTMUX_LINK_TIMEOUT (and its bounds), and the ssh options a hub's session gets.
 */
import * as Result from "effect/Result"
import { assert, describe, it } from "vitest"
import { sshCommand } from "../../src/domain/clientConfig.ts"
import type { Invocation } from "../../src/domain/config.ts"
import { backOffMs, keepAliveSeconds, onlyReads } from "../../src/domain/hostLink.ts"
import { resendable } from "../../src/hub/Hub.ts"
import { manifest, type ToolName, toolNames } from "../../src/manifest/index.ts"
import { definitionOf } from "../../src/tools/index.ts"
import { invoke } from "../support/invocation.ts"

describe("resendable", () => {
  it("sends again only reads: every inspect tool but wait_for_text; nothing of manage, execute or teardown", () => {
    const again = toolNames.filter((name) => resendable(definitionOf(name as ToolName)))
    assert.include(again, "list_sessions")
    assert.include(again, "capture_pane")
    assert.include(again, "call_read_tools_batch")
    assert.notInclude(again, "wait_for_text")
    for (const name of toolNames) {
      const row = manifest[name as ToolName]
      if (row.toolset !== "inspect") assert.isFalse(resendable(definitionOf(name as ToolName)), name)
    }
    assert.notInclude(again, "run_shell_command")
    assert.notInclude(again, "send_keys")
    assert.isTrue(onlyReads(manifest.wait_for_text))
    assert.isFalse(onlyReads(manifest.create_window))
  })
})

describe("backOffMs", () => {
  it("doubles from 1 s after each failed connect in a row, up to 30 s", () => {
    assert.deepStrictEqual([1, 2, 3, 4, 5, 6, 7, 100].map(backOffMs), [
      1000,
      2000,
      4000,
      8000,
      16_000,
      30_000,
      30_000,
      30_000
    ])
  })
})

describe("the link timeout", () => {
  it("pings and keeps alive every third of it, never under a second", () => {
    assert.strictEqual(keepAliveSeconds(45), 15)
    assert.strictEqual(keepAliveSeconds(6), 2)
    assert.strictEqual(keepAliveSeconds(3), 1)
  })

  const linkOf = (env: Record<string, string>, argv: ReadonlyArray<string> = []) => {
    const result = invoke(env, argv)
    if (Result.isFailure(result)) return result.failure.message
    return (result.success as Extract<Invocation, { kind: "serve" }>).config.linkTimeoutSeconds
  }

  it("reads LIBTMUX_LINK_TIMEOUT and --link-timeout as whole seconds from 3 to 3600; unset is undefined", () => {
    assert.strictEqual(linkOf({}), undefined)
    assert.strictEqual(linkOf({ LIBTMUX_LINK_TIMEOUT: "45" }), 45)
    assert.strictEqual(linkOf({ LIBTMUX_LINK_TIMEOUT: "45" }, ["--link-timeout", "6"]), 6)
    for (const bad of ["2", "3601", "1.5", "", "ten"]) {
      assert.include(
        String(linkOf({ LIBTMUX_LINK_TIMEOUT: bad })),
        "use whole seconds from 3 to 3600",
        JSON.stringify(bad)
      )
    }
  })

  it("gives a hub's ssh its keep-alive and a connect timeout; --print-config keeps 15 s and no connect timeout", () => {
    const host = { destination: "alpha", port: undefined, sshConfig: undefined, command: ["libtmux-mcp"] }
    const hub = sshCommand(host, {}, { aliveSeconds: 2, connectSeconds: 6 }).args
    assert.includeMembers(hub, ["ServerAliveInterval=2", "ServerAliveCountMax=3", "ConnectTimeout=6"])
    const entry = sshCommand(host, {}).args
    assert.include(entry, "ServerAliveInterval=15")
    assert.isFalse(entry.some((arg) => arg.startsWith("ConnectTimeout")))
  })
})
