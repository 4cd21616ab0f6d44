/**
 * /proc behind one service (platform/Proc.ts): one stat parser, this instance's tag from what
 * /proc says, and stat's times counted in the system's clock tick rate, not an assumed 100.
 */
import { assert, describe, it } from "vitest"
import { parseTag } from "../../src/domain/instance.ts"
import { clockTicksOfAuxv, parseProcStat } from "../../src/domain/procStat.ts"
import { protocolNames } from "../../src/domain/protocolNames.ts"
import { waitingChannels } from "../../src/platform/Leftovers.ts"
import { clockTicks, makeProc, type ProcFiles } from "../../src/platform/Proc.ts"

/** A stat line with `fields` from field 3 on, padded with zeros to field 52. */
const statLine = (pid: number, comm: string, fields: Record<number, string | number>) =>
  `${pid} (${comm}) ${Array.from({ length: 50 }, (_, i) => String(fields[i + 3] ?? 0)).join(" ")}`

const files = (entries: Record<string, string>, links: Record<string, string> = {}): ProcFiles => ({
  read: (path) => entries[path],
  link: (path) => links[path],
  device: () => undefined,
  list: (path) =>
    path === "/proc"
      ? [...new Set(Object.keys(entries).flatMap((key) => /^\/proc\/([0-9]+)\//u.exec(key)?.[1] ?? []))]
      : [],
  readAt: () => undefined
})

describe("/proc/<pid>/stat", () => {
  it("counts the fields after the command name's last parenthesis, whatever the name holds", () => {
    const stat = parseProcStat(statLine(42, "a (b) c", { 3: "Z", 4: 7, 5: 42, 7: 34819, 8: 42, 22: 5000, 52: 256 }))
    assert.deepStrictEqual(stat, {
      comm: "a (b) c",
      state: "Z",
      ppid: 7,
      pgrp: 42,
      ttyNr: 34819,
      tpgid: 42,
      started: 5000,
      image: undefined,
      waited: 256
    })
    assert.isUndefined(parseProcStat("not a stat line"))
  })
})

describe("the Proc service", () => {
  it("tags this instance with its start time and pid namespace", () => {
    const proc = makeProc(
      files({ "/proc/100/stat": statLine(100, "node", { 22: 5000 }) }),
      100,
      () => 100
    )
    assert.strictEqual(proc.tag, "100.5000.")
    const linked = makeProc(
      files({ "/proc/100/stat": statLine(100, "node", { 22: 5000 }) }, { "/proc/self/ns/pid": "pid:[4026531836]" }),
      100,
      () => 100
    )
    assert.deepStrictEqual(parseTag(linked.tag), { pid: 100, started: 5000, namespace: "4026531836" })
  })

  it("reads the system's clock tick rate", () => {
    assert.isTrue(Number.isInteger(clockTicks()) && clockTicks() > 0)
  })

  it("finds AT_CLKTCK in an auxiliary vector of either word size and byte order", () => {
    const vector = (pairs: ReadonlyArray<readonly [number, number]>, word: 4 | 8, littleEndian: boolean) => {
      const bytes = Buffer.alloc(pairs.length * 2 * word)
      pairs.flat().forEach((value, i) => {
        if (word === 8) {
          if (littleEndian) bytes.writeBigUInt64LE(BigInt(value), i * 8)
          else bytes.writeBigUInt64BE(BigInt(value), i * 8)
        } else if (littleEndian) bytes.writeUInt32LE(value, i * 4)
        else bytes.writeUInt32BE(value, i * 4)
      })
      return bytes
    }
    // AT_PAGESZ (6), AT_CLKTCK (17), AT_NULL (0), as the kernel lays them out.
    const pairs = [[6, 4096], [17, 250], [0, 0]] as const
    for (const word of [4, 8] as const) {
      for (const littleEndian of [true, false]) {
        assert.strictEqual(clockTicksOfAuxv(vector(pairs, word, littleEndian), word, littleEndian), 250)
      }
    }
    // Missing, after the end marker, zero, or cut short: not known.
    assert.isUndefined(clockTicksOfAuxv(vector([[6, 4096], [0, 0]], 8, true), 8, true))
    assert.isUndefined(clockTicksOfAuxv(vector([[0, 0], [17, 250]], 8, true), 8, true))
    assert.isUndefined(clockTicksOfAuxv(vector([[17, 0], [0, 0]], 8, true), 8, true))
    assert.isUndefined(clockTicksOfAuxv(vector(pairs, 8, true).subarray(0, 20), 8, true))
    assert.isUndefined(clockTicksOfAuxv(Buffer.alloc(0), 8, true))
  })

  it("ages a waiter by the system's tick rate", () => {
    const channel = protocolNames("0a1b2c").channel
    // Uptime 10 s; the waiter started at tick 900: 9 s after boot at 100 Hz (1 s old), 0.9 s at 1000 Hz (9.1 s old).
    const proc = files({
      "/proc/uptime": "10.00 20.00",
      "/proc/7/cmdline": ["tmux", "-N", "-L", "x", "wait-for", channel, ""].join("\0"),
      "/proc/7/stat": statLine(7, "tmux", { 22: 900 })
    })
    assert.strictEqual(waitingChannels(["-L", "x"], makeProc(proc, 1, () => 100)).size, 0)
    assert.deepStrictEqual([...waitingChannels(["-L", "x"], makeProc(proc, 1, () => 1000))], [channel])
  })
})
