/**
 * The fake tmux's `wait-for` (test/support/fakeWaitFor.ts) against what tmux 3.3a does, each case as
 * seen on tmux 3.3a (cmd-wait-for.c): a signal's wake is kept only when none waits, a killed waiter
 * takes a wake and never runs on, an orphaned one runs the rest of its list, locks queue.
 */
import { assert, describe, it } from "vitest"
import { makeWaitServer, type Outcome } from "../support/fakeWaitFor.ts"

/** A world of global user options, as `set -g NAME VALUE`, `show -gv NAME` and a failing `fail`. */
const makeWorld = () => {
  const options = new Map<string, string>()
  const server = makeWaitServer((command): Outcome => {
    if (command[0] === "set") {
      options.set(command[1]!, command[2]!)
      return {}
    }
    if (command[0] === "show") {
      const value = options.get(command[1]!)
      return value === undefined ? { error: `invalid option: ${command[1]}` } : { out: value }
    }
    if (command[0] === "fail") return { error: "refused" }
    return {}
  })
  return { options, server }
}

describe("wait-for -S", () => {
  it("with none waiting keeps the channel woken for one wait, which takes the wake", () => {
    const { server } = makeWorld()
    server.start([["wait-for", "-S", "ch"]])
    assert.isTrue(server.isWoken("ch"))
    assert.strictEqual(server.start([["wait-for", "ch"]]).state, "done")
    assert.strictEqual(server.start([["wait-for", "ch"]]).state, "waiting")
  })

  it("twice with none waiting forgets the wake (the second finds it woken and removes the channel)", () => {
    const { server } = makeWorld()
    server.start([["wait-for", "-S", "ch"], ["wait-for", "-S", "ch"]])
    assert.isFalse(server.isWoken("ch"))
    assert.strictEqual(server.start([["wait-for", "ch"]]).state, "waiting")
  })

  it("wakes every waiter and keeps nothing; the woken lists run after the signalling list", () => {
    const { options, server } = makeWorld()
    const a = server.start([["wait-for", "ch"], ["set", "@a", "ran"]])
    const b = server.start([["wait-for", "ch"], ["show", "@s"]])
    assert.strictEqual(server.waiters("ch"), 2)
    const signaller = server.start([["wait-for", "-S", "ch"], ["set", "@s", "first"]])
    assert.deepStrictEqual([a.state, b.state, signaller.state], ["done", "done", "done"])
    assert.strictEqual(options.get("@a"), "ran")
    assert.deepStrictEqual(b.out, ["first"])
    assert.isFalse(server.isWoken("ch"))
    assert.strictEqual(server.waiters("ch"), 0)
  })
})

describe("a waiting client", () => {
  it("killed stays a waiter: it takes the next signal's wake and never runs the rest of its list", () => {
    const { options, server } = makeWorld()
    const killed = server.start([["wait-for", "ch"], ["set", "@x", "killed"]])
    server.kill(killed)
    assert.strictEqual(server.waiters("ch"), 1)
    server.start([["wait-for", "-S", "ch"]])
    assert.strictEqual(killed.state, "killed")
    assert.isUndefined(options.get("@x"))
    // The wake went to the killed waiter: nothing is kept for the next one.
    assert.isFalse(server.isWoken("ch"))
    assert.strictEqual(server.start([["wait-for", "ch"]]).state, "waiting")
  })

  it("orphaned runs the rest of its list when woken, and nobody reads what it prints", () => {
    const { options, server } = makeWorld()
    options.set("@v", "value")
    const orphan = server.start([["wait-for", "ch"], ["show", "@v"], ["set", "@y", "orphan"]])
    server.orphan(orphan)
    server.start([["wait-for", "-S", "ch"]])
    assert.strictEqual(orphan.state, "done")
    assert.strictEqual(options.get("@y"), "orphan")
    assert.deepStrictEqual(orphan.out, [])
  })

  it("is lost with its server, and a restarted server knows no channel of the dead one", () => {
    const { options, server } = makeWorld()
    const waiting = server.start([["wait-for", "ch"], ["set", "@z", "after"]])
    server.die()
    assert.strictEqual(waiting.state, "lost")
    assert.strictEqual(server.start([["set", "@z", "x"]]).state, "failed")
    server.restart()
    server.start([["wait-for", "-S", "ch"]])
    assert.isUndefined(options.get("@z"))
    assert.isTrue(server.isWoken("ch"))
  })
})

describe("a command list", () => {
  it("drops the rest of its commands after one fails", () => {
    const { options, server } = makeWorld()
    const client = server.start([["set", "@a", "1"], ["fail"], ["set", "@b", "2"]])
    assert.strictEqual(client.state, "failed")
    assert.strictEqual(client.error, "refused")
    assert.deepStrictEqual([...options.keys()], ["@a"])
  })
})

describe("wait-for -L and -U", () => {
  it("queue for the lock and pass it to the first in the queue, a killed one included", () => {
    const { options, server } = makeWorld()
    server.start([["wait-for", "-L", "lk"]])
    const killed = server.start([["wait-for", "-L", "lk"], ["set", "@k", "ran"]])
    const next = server.start([["wait-for", "-L", "lk"], ["set", "@n", "ran"]])
    server.kill(killed)
    assert.strictEqual(next.state, "locking")
    // The first unlock passes the lock to the killed locker, which never runs on nor unlocks.
    server.start([["wait-for", "-U", "lk"]])
    assert.deepStrictEqual([killed.state, next.state], ["killed", "locking"])
    server.start([["wait-for", "-U", "lk"]])
    assert.strictEqual(next.state, "done")
    assert.deepStrictEqual([...options.keys()], ["@n"])
  })

  it("-U of a channel not locked is refused with tmux's message", () => {
    const { server } = makeWorld()
    const client = server.start([["wait-for", "-U", "free"], ["set", "@a", "1"]])
    assert.strictEqual(client.error, "channel free not locked")
  })

  it("a lock freed with none queued leaves the channel unlocked", () => {
    const { server } = makeWorld()
    server.start([["wait-for", "-L", "lk"], ["wait-for", "-U", "lk"]])
    assert.strictEqual(server.start([["wait-for", "-L", "lk"]]).state, "done")
  })
})
