/**
 * One read per question (issue 60): a resume reads the run's head (its records, the pane's
 * position and claim) once before it waits, and decodes the record once. Counted with a tmux
 * that logs each invocation (forked clients: LIBTMUX_TRANSPORT=spawn).
 */
import { chmodSync, readFileSync, writeFileSync } from "node:fs"
import { join } from "node:path"
import { assert, describe, it } from "vitest"
import { shellQuote } from "../../src/domain/quote.ts"
import { until } from "../support/poll.ts"
import { resume, run, runHarness } from "../support/runs.ts"
import type { TmuxWorld } from "../support/tmux.ts"

const { open } = runHarness("reads", { inProcess: true })

/** The server's tmux as a wrapper that logs each invocation's arguments, one line each. */
const loggedTmux = (world: TmuxWorld, env: Readonly<Record<string, string>>) => {
  const wrapper = join(world.dir, "logged-tmux")
  writeFileSync(wrapper, `#!/bin/sh\nprintf '%s\\n' "$*" >> '${join(world.dir, "tmux.log")}'\nexec tmux "$@"\n`)
  chmodSync(wrapper, 0o755)
  Object.assign(env, { LIBTMUX_TMUX_BIN: wrapper, LIBTMUX_TRANSPORT: "spawn" })
}

describe("a resume", () => {
  it("reads the run's head once before it waits", async () => {
    const { world, c, pane } = await open("/bin/bash", {}, loggedTmux)
    const log = () => readFileSync(join(world.dir, "tmux.log"), "utf8").split("\n").filter((line) => line !== "")
    const go = join(world.dir, "go")
    const held = await run(c, pane, `until [ -e ${shellQuote(go)} ]; do sleep 0.05; done; echo resumed`, {
      timeout: 0.3
    })
    assert.isTrue(held.timed_out, JSON.stringify(held))
    const before = log().length
    const resumed = resume(c, pane, held.run_id, 20)
    // The run ends once the resume waits (a run that ended before would be answered from its record).
    await until("the resume to wait", () => log().slice(before), (lines) => lines.some((l) => l.includes("wait-for")))
    writeFileSync(go, "")
    assert.deepInclude(await resumed, { output: "resumed", exit_status: 0 })
    // The resume's own invocations up to the one that waits on the run's channel (the trailer's
    // client in the shell, `run -t%N`, is not the server's).
    // The server's own background reads (its buffer and pane sweeps) name no pane: only the pane's count.
    const own = log().slice(before).filter((line) => line.includes(` -t ${pane} `) || line.includes("wait-for lmcp_"))
    const waiting = own.findIndex((line) => line.includes("wait-for lmcp_"))
    assert.isAtLeast(waiting, 0, own.join("\n"))
    assert.lengthOf(own.slice(0, waiting), 1, own.slice(0, waiting).join("\n"))
  })
})
