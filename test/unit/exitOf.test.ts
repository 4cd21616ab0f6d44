/**
 * A shell's status read from its zombie: tmux 3.3a can mark a pane dead without reaping its shell
 * for seconds (measured: 5 of 30 bare `exit 3`s), and the run still says how the shell ended.
 */
import { readFileSync } from "node:fs"
import { assert, describe, it } from "vitest"
import { decodeWaitStatus, exitFrom } from "../../src/layers/PaneProcessLive.ts"

/** A made-up /proc holding one process's stat line, with `state` and wait status `waited`. */
const procWith = (pid: number, comm: string, state: string, waited: number) => ({
  read: (path: string) =>
    path === `/proc/${pid}/stat`
      ? `${pid} (${comm}) ${state} 1 ${pid} ${pid} 0 -1 4227084 ${
        Array.from({ length: 42 }, () => "0").join(" ")
      } ${waited}\n`
      : undefined,
  link: () => undefined,
  device: () => undefined
})

describe("PaneProcess.exitOf", () => {
  it("decodes a wait status: an exit status, or the ending signal", () => {
    assert.deepStrictEqual(decodeWaitStatus(7 << 8), { status: 7, signal: null })
    assert.deepStrictEqual(decodeWaitStatus(0), { status: 0, signal: null })
    assert.deepStrictEqual(decodeWaitStatus(15), { status: null, signal: 15 })
    assert.deepStrictEqual(decodeWaitStatus(9 | 0x80), { status: null, signal: 9 })
  })

  it("reads an unreaped shell's status from stat field 52, and nothing of a live, renamed or gone process", () => {
    assert.deepStrictEqual(exitFrom(40, "bash", procWith(40, "bash", "Z", 3 << 8)), { status: 3, signal: null })
    assert.deepStrictEqual(exitFrom(40, "my shell)", procWith(40, "my shell)", "Z", 1)), { status: null, signal: 1 })
    assert.isUndefined(exitFrom(40, "bash", procWith(40, "bash", "S", 0)), "a live process")
    assert.isUndefined(exitFrom(40, "bash", procWith(40, "zsh", "Z", 0)), "another command name")
    assert.isUndefined(exitFrom(41, "bash", procWith(40, "bash", "Z", 0)), "no such process")
  })

  it("this kernel's stat line has the wait status field (Linux 3.5 and later)", () => {
    const fields = readFileSync("/proc/self/stat", "utf8").split(") ")[1]!.trim().split(" ")
    assert.isAtLeast(fields.length, 50)
    assert.isTrue(Number.isInteger(Number(fields[49])))
  })
})
