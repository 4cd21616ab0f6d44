/**
 * A waiting list with `signalled` over a real control connection (platform/ControlLink.ts): a list
 * whose signal shows within the look is read over the connection with no client started, and its
 * channel is left as a wait leaves it, a list that begins with its wait (a resume's) too; one whose
 * signal does not show starts its waiting client, which the signal then ends; a list without
 * `signalled` starts its client as before. A run's collection leaves no channel: a signal tmux kept
 * because nothing waited any more (the call stopped looking before it came) goes, a waiter is woken.
 */
import * as Effect from "effect/Effect"
import { afterAll, assert, beforeAll, describe, it } from "vitest"
import { parseTag } from "../../src/domain/instance.ts"
import { paneRunOptions, protocolNames } from "../../src/domain/protocolNames.ts"
import { abandon, collect } from "../../src/domain/runCommands.ts"
import { type ControlLink, makeControlLink } from "../../src/platform/ControlLink.ts"
import { thisTag } from "../../src/platform/thisInstance.ts"
import { buildArgv, execTmux } from "../../src/platform/TmuxExec.ts"
import type { RunnerOptions } from "../../src/services/Tmux.ts"
import { until } from "../support/poll.ts"
import { makeWorld } from "../support/tmux.ts"

const world = makeWorld("signal")
const socket = world.socketPath("s")
const { env } = world
let link: ControlLink
let pane = ""

beforeAll(async () => {
  world.tmux("s", "new-session", "-d", "-s", "work", "-x", "80", "-y", "24", "exec sleep 1000")
  pane = world.tmux("s", "display-message", "-p", "-t", "work", "#{pane_id}").trim()
  link = makeControlLink(
    {
      bin: "tmux",
      socketFlags: ["-S", socket],
      socketPath: socket,
      owner: { pid: process.pid, started: String(parseTag(thisTag)?.started ?? "") },
      env,
      session: "libtmux-mcp-connection-signal-test"
    },
    Effect.void
  )
  // The connection opens on the first invocation it can carry.
  await Effect.runPromise(link.run([["display-message", "-p", "-t", pane, "up"]], {}, spawnedBy([])))
})
afterAll(async () => {
  await link?.shutdown()
  world.dispose()
})

/** The spawned runner, noting each list it was given in `lists`. */
const spawnedBy =
  (lists: Array<ReadonlyArray<ReadonlyArray<string>>>) =>
  (commands: ReadonlyArray<ReadonlyArray<string>>, options: RunnerOptions) => {
    lists.push(commands)
    return execTmux("tmux", buildArgv(["-S", socket], commands), socket, {
      env,
      timeoutMs: options.timeoutMs ?? 10_000
    })
  }

/** A waiting list for channel `name`: it sets the pane option `@t_<name>`, waits, then prints `read <name>`. */
const waitingList = (name: string) => [
  ["set-option", "-p", "-t", pane, `@t_${name}`, "typed"],
  ["wait-for", name],
  ["display-message", "-p", "-t", pane, `read #{@t_${name}}`]
]
const signalledBy = (name: string) => ["display-message", "-p", "-t", pane, `#{@e_${name}}`] as const

/** Signals `name` and sets its end option in one list, as a run's trailer does. */
const trailer = (name: string) =>
  world.tmux("s", "wait-for", "-S", name, ";", "set-option", "-p", "-t", pane, `@e_${name}`, "0")

/** Whether a client waiting on `name` returns within `ms` (the channel kept a signal for it). */
const woken = (name: string, ms: number) =>
  Effect.runPromise(
    execTmux("tmux", buildArgv(["-S", socket], [["wait-for", name]]), socket, { env, timeoutMs: ms }).pipe(
      Effect.as(true),
      Effect.catchTag("TmuxTimedOut", () => Effect.succeed(false))
    )
  )

describe("a waiting list with signalled, over the connection", () => {
  it("reads the rest over the connection once the signal shows, starts no client, keeps no signal", async () => {
    trailer("early")
    const lists: Array<ReadonlyArray<ReadonlyArray<string>>> = []
    const out = await Effect.runPromise(
      link.run(waitingList("early"), { signalled: signalledBy("early") }, spawnedBy(lists))
    )
    assert.strictEqual(out, "read typed\n")
    assert.deepStrictEqual(lists, [])
    // As a wait would have: the kept signal is gone, so a new waiter waits.
    assert.isFalse(await woken("early", 300))
  })

  it("starts a client for the waiting part once the look found no signal, and the signal ends it", async () => {
    const lists: Array<ReadonlyArray<ReadonlyArray<string>>> = []
    const answer = Effect.runPromise(
      link.run(waitingList("late"), { signalled: signalledBy("late") }, spawnedBy(lists))
    )
    // The look ends without the signal; only the waiting part goes to the client.
    await until("the waiting client to start", () => lists.length, (started) => started > 0)
    assert.deepStrictEqual(lists.map((list) => list[0]![0]), ["wait-for"])
    trailer("late")
    assert.strictEqual(await answer, "read typed\n")
  })

  it("reads a list that begins with its wait (a resume's) over the connection once the signal shows", async () => {
    trailer("resumed")
    const lists: Array<ReadonlyArray<ReadonlyArray<string>>> = []
    const out = await Effect.runPromise(
      link.run(waitingList("resumed").slice(1), { signalled: signalledBy("resumed") }, spawnedBy(lists))
    )
    // Nothing set `@t_resumed` (the list has no first part): the read prints it empty.
    assert.strictEqual(out, "read \n")
    assert.deepStrictEqual(lists, [])
    assert.isFalse(await woken("resumed", 300))
  })

  it("starts the waiting client at once without signalled", async () => {
    const lists: Array<ReadonlyArray<ReadonlyArray<string>>> = []
    const answer = Effect.runPromise(link.run(waitingList("plain"), {}, spawnedBy(lists)))
    trailer("plain")
    assert.strictEqual(await answer, "read typed\n")
    assert.deepStrictEqual(lists.map((list) => list[0]![0]), ["wait-for"])
  })
})

describe("a run's collection over the connection", () => {
  const collection = { status: 0, ended: "reported", collector: "t", at: 0 } as const
  /** A run recorded on the pane, as collect's guard asks. */
  const recorded = (id: string) => {
    world.tmux("s", "set-option", "-p", "-t", pane, paneRunOptions.record(id), "x")
    return { id, paneId: pane }
  }

  for (const [close, commands] of [["collect", collect], ["abandon", abandon]] as const) {
    it(`removes a signal tmux kept for the run (${close})`, async () => {
      const run = recorded(close === "collect" ? "c0ffe1" : "c0ffe2")
      const channel = protocolNames(run.id).channel
      // The trailer's signal came after the call had stopped looking for it: no waiter, so tmux keeps it.
      world.tmux("s", "wait-for", "-S", channel)
      const lists: Array<ReadonlyArray<ReadonlyArray<string>>> = []
      await Effect.runPromise(link.run(commands(run, collection), {}, spawnedBy(lists)))
      assert.deepStrictEqual(lists, [], "the list went over the connection")
      assert.isFalse(await woken(channel, 300), "a new waiter waits: the kept signal is gone")
    })
  }

  it("wakes a waiter of the run and leaves nothing kept", async () => {
    const run = recorded("c0ffe3")
    const channel = protocolNames(run.id).channel
    const waiting = Effect.runPromise(
      execTmux(
        "tmux",
        buildArgv(["-S", socket], [["set-option", "-p", "-t", pane, "@t_waiter", "on"], ["wait-for", channel]]),
        socket,
        { env, timeoutMs: 10_000 }
      )
    )
    // The option is set in the waiter's own turn, right before its wait: once it shows, the client waits.
    await until("the waiter", () => world.tmux("s", "show-options", "-pqv", "-t", pane, "@t_waiter"), (v) => v !== "")
    await Effect.runPromise(link.run(collect(run, collection), {}, spawnedBy([])))
    await waiting
    assert.isFalse(await woken(channel, 300), "a new waiter waits")
  })
})
