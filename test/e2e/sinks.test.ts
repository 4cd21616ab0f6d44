/**
 * The dynamic sink test: every string parameter of every tool gets payloads that tmux would expand
 * or run if they reached a format (`#(touch FILE)`, `#{...}`) or split as a command (`;`), against a
 * real tmux. No file may appear. Payload-bearing parameters (keys, text, commands) are included:
 * the payloads are inert in a POSIX shell (a comment or a syntax error), so a file could only come
 * from tmux itself.
 */
import { readdirSync } from "node:fs"
import { join } from "node:path"
import { assert, describe, it } from "vitest"
import { registry } from "../../src/tools/index.ts"
import { sharedServer } from "../support/harness.ts"
import { call, structured } from "../support/mcp.ts"
import { samples } from "../support/samples.ts"
import { shellEnv } from "../support/shells.ts"
import { afterFormatJobs, markerJob } from "../support/tmux.ts"

// What a payload could reach is tmux: a fresh tmux server for each tool (the samples name $0, @0, %0).
const shared = sharedServer("sinks", (world) => shellEnv(world, "/bin/bash"))

const markersUnder = (dir: string): ReadonlyArray<string> =>
  readdirSync(dir, { withFileTypes: true, recursive: true }).filter((entry) => entry.name.startsWith("marker")).map((
    entry
  ) => join(entry.parentPath, entry.name))

/** Every way to put `payload` into one string slot of `args`, top level or inside arrays of objects. */
const variants = (args: Record<string, unknown>, payload: string): Array<Record<string, unknown>> => {
  const out: Array<Record<string, unknown>> = []
  for (const [key, value] of Object.entries(args)) {
    if (typeof value === "string") out.push({ ...args, [key]: payload })
    if (Array.isArray(value)) {
      value.forEach((item, index) => {
        if (typeof item === "string") out.push({ ...args, [key]: value.map((v, i) => i === index ? payload : v) })
        if (item !== null && typeof item === "object") {
          for (const inner of variants(item as Record<string, unknown>, payload)) {
            out.push({ ...args, [key]: value.map((v, i) => i === index ? inner : v) })
          }
        }
      })
    }
  }
  return out
}

describe("format and command sinks", () => {
  for (const tool of Object.keys(registry)) {
    it(`${tool}: no string parameter reaches a tmux format or splits a tmux command`, async () => {
      const { world, c } = await shared.freshTmux()
      const session = structured(await call(c, "create_session", { session_name: "work" }))
      structured(await call(c, "run_shell_command", { pane_id: session.pane_id, command: "true" }))
      const job = markerJob
      const payloads = [
        job("plain"),
        `x#{pane_id}${job("nested")}`,
        "semi;",
        `;${job("after")}`,
        `#{E:${job("expand")}}`
      ]
      for (const base of samples[tool as keyof typeof samples] ?? []) {
        for (const payload of payloads) {
          for (const args of variants(base, payload)) {
            await call(c, tool, args).catch(() => undefined)
          }
        }
      }
      afterFormatJobs(world)
      assert.deepStrictEqual(markersUnder(world.dir), [])
    })
  }
})
