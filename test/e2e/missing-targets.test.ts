/**
 * Every tool answers a target that does not exist at once, with the not-found error that names
 * what exists (tmux 3.3a's `display-message -t %99` prints empty fields and exits 0, so nothing may
 * rely on tmux failing). Each tool's sample calls are replayed with every target replaced by one
 * that does not exist.
 */
import { assert, describe, it } from "vitest"
import { modelToolNames } from "../../src/manifest/index.ts"
import { harness } from "../support/harness.ts"
import { call, structured, textOf } from "../support/mcp.ts"
import { samples } from "../support/samples.ts"

const h = harness("missing", { inProcess: true })
const missing: Record<string, string> = { "%0": "%99", "%1": "%98", "@0": "@99", "$0": "$99", work: "nosuch" }

/** The sample with every target replaced; `undefined` when it names none. */
const retarget = (args: Record<string, unknown>): Record<string, unknown> | undefined => {
  let changed = false
  const replace = (value: unknown): unknown => {
    if (typeof value === "string" && missing[value] !== undefined) {
      changed = true
      return missing[value]
    }
    if (Array.isArray(value)) return value.map(replace)
    if (value !== null && typeof value === "object") {
      return Object.fromEntries(
        Object.entries(value).map(([key, item]) => [key, key === "tool" ? item : replace(item)])
      )
    }
    return value
  }
  const replaced = replace(args) as Record<string, unknown>
  return changed ? replaced : undefined
}

describe("missing targets", () => {
  it(
    "every tool answers a missing session, window or pane " +
      "at once with a not-found error naming what exists",
    async () => {
      const world = h.world()
      const c = await h.connect(world, { LIBTMUX_TOOLSETS: "inspect,manage,execute,teardown" })
      structured(await call(c, "create_session", { session_name: "work" }))
      let checked = 0
      const problems: Array<string> = []
      for (const name of modelToolNames) {
        for (const sample of samples[name] ?? []) {
          const args = retarget(sample)
          if (args === undefined || name === "call_read_tools_batch") continue
          // Waiting tools get a long timeout and the request a third of it: a missing target must not be waited out.
          const withTimeout = "timeout" in args ? { ...args, timeout: 30 } : args
          const result = await call(c, name, withTimeout, { timeout: 10_000 }).catch((error: unknown) => String(error))
          checked++
          if (typeof result === "string") {
            problems.push(`${name} ${JSON.stringify(args)}: no answer: ${result}`)
            continue
          }
          const tag = String(result._meta?.["com.git-pull.libtmux-mcp/error"])
          if (result.isError !== true || !tag.endsWith("NotFound") || !/existing \w+s: /u.test(textOf(result))) {
            problems.push(`${name} ${JSON.stringify(args)}: ${tag}: ${textOf(result).slice(0, 160)}`)
          }
        }
      }
      assert.deepStrictEqual(problems, [])
      assert.isAbove(checked, 30)
    }
  )
})
