/**
 * A shell's status read from its zombie: tmux 3.3a can mark a pane dead without reaping its shell
 * for seconds (measured: 5 of 30 bare `exit 3`s), and the run still says how the shell ended.
 */
import * as Effect from "effect/Effect"
import { spawn } from "node:child_process"
import { once } from "node:events"
import { assert, describe, it } from "vitest"
import { decodeWaitStatus, layer } from "../../src/layers/PaneProcessLive.ts"
import { PaneProcess } from "../../src/services/PaneProcess.ts"
import { until } from "../support/poll.ts"

const exitOf = (pid: number, comm: string) =>
  Effect.runPromise(
    Effect.flatMap(PaneProcess, (processes) => processes.exitOf(pid, comm)).pipe(
      Effect.provide(layer)
    )
  )

/** A child of `exec sleep`, which never reaps it: its zombie stays until the sleep ends. */
const zombie = async (script: string) => {
  const parent = spawn("sh", ["-c", `sh -c '${script}' & echo $!; exec sleep 30`], {
    stdio: ["ignore", "pipe", "ignore"]
  })
  const [line] = await once(parent.stdout, "data") as [Buffer]
  return { pid: Number(line.toString().trim()), parent }
}

describe("PaneProcess.exitOf", () => {
  it("decodes a wait status: an exit status, or the ending signal", () => {
    assert.deepStrictEqual(decodeWaitStatus(7 << 8), { status: 7, signal: null })
    assert.deepStrictEqual(decodeWaitStatus(0), { status: 0, signal: null })
    assert.deepStrictEqual(decodeWaitStatus(15), { status: null, signal: 15 })
    assert.deepStrictEqual(decodeWaitStatus(9 | 0x80), { status: null, signal: 9 })
  })

  it("reads an unreaped shell's exit status, and nothing of a live or mismatched process", async () => {
    const exited = await zombie("exit 7")
    try {
      assert.deepStrictEqual(
        await until("the zombie's status", () => exitOf(exited.pid, "sh"), (v) => v !== undefined),
        {
          status: 7,
          signal: null
        }
      )
      assert.isUndefined(await exitOf(exited.pid, "bash"), "another command name")
      assert.isUndefined(await exitOf(exited.parent.pid!, "sleep"), "a live process")
    } finally {
      exited.parent.kill()
    }
  })
})
