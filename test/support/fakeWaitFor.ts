/**
 * tmux 3.3a's command queue and `wait-for` channels (cmd-wait-for.c), for unit tests that need to see
 * what a waiting client's command list does after the call that started it is gone:
 * - `wait-for -S` wakes every waiter; with none waiting it keeps the channel woken, so the next
 *   plain `wait-for` returns at once (and takes the wake); a second signal with none waiting finds the
 *   channel woken and removes it, wake and all (seen on tmux 3.3a);
 * - `wait-for -L` takes the channel's lock or queues for it; `-U` passes it to the first in the queue, or
 *   frees it, and is refused when the channel is not locked;
 * - a client killed while it waits stays a waiter (a signal's wake goes to it) and never runs the rest of
 *   its list; an orphaned one (its caller gone, its process alive) does, and nobody reads what it prints;
 * - a command that fails drops the rest of its list; the lists a signal woke run after the signalling
 *   list has run (or blocked); the server's death ends every client and forgets every channel.
 * Every other command goes to the test's `exec`.
 */

/** What one command did: printed `out`, or failed with tmux's message. */
export type Outcome = { readonly out?: string } | { readonly error: string }

/** The commands other than `wait-for`, run against the test's world. */
export type Exec = (command: ReadonlyArray<string>) => Outcome

/** Where a client is: running its list, blocked in a wait or lock, or finished one way or another. */
export type ClientState = "running" | "waiting" | "locking" | "done" | "failed" | "killed" | "lost"

/** One tmux client process running one command list. */
export interface FakeClient {
  readonly id: number
  readonly commands: ReadonlyArray<ReadonlyArray<string>>
  /** The index of the next command to run. */
  next: number
  state: ClientState
  /** Its caller is gone but the process lives: it runs on and nobody reads it. */
  orphaned: boolean
  /** Killed (its process gone): tmux keeps its queue item as a waiter or locker. */
  killed: boolean
  readonly out: Array<string>
  error: string | undefined
}

interface Channel {
  woken: boolean
  locked: boolean
  readonly waiters: Array<FakeClient>
  readonly lockers: Array<FakeClient>
}

/** A tmux server's queue and channels over `exec`. */
export const makeWaitServer = (exec: Exec) => {
  const channels = new Map<string, Channel>()
  const clients: Array<FakeClient> = []
  let nextId = 0
  let alive = true

  const channel = (name: string): Channel => {
    let found = channels.get(name)
    if (found === undefined) {
      found = { woken: false, locked: false, waiters: [], lockers: [] }
      channels.set(name, found)
    }
    return found
  }
  // cmd_wait_for_remove: a channel neither locked, waited on nor woken is forgotten.
  const remove = (name: string) => {
    const found = channels.get(name)
    if (found === undefined || found.locked || found.waiters.length > 0 || !found.woken) return
    channels.delete(name)
  }

  /** The clients to continue once the running list stops. */
  const woken: Array<FakeClient> = []
  const resume = (client: FakeClient) => {
    if (client.killed) client.state = "killed"
    else {
      client.state = "running"
      woken.push(client)
    }
  }

  /** One `wait-for`: "go" to carry on, "block" to wait, or tmux's refusal. */
  const waitFor = (client: FakeClient, args: ReadonlyArray<string>): "go" | "block" | { error: string } => {
    const name = args.at(-1) ?? ""
    const flag = args.length > 1 ? args[0] : undefined
    if (flag === "-S") {
      const found = channel(name)
      if (found.waiters.length === 0 && !found.woken) {
        found.woken = true
        return "go"
      }
      for (const waiter of found.waiters.splice(0)) resume(waiter)
      remove(name)
      return "go"
    }
    if (flag === "-L") {
      const found = channel(name)
      if (!found.locked) {
        found.locked = true
        return "go"
      }
      found.lockers.push(client)
      client.state = "locking"
      return "block"
    }
    if (flag === "-U") {
      const found = channels.get(name)
      if (found === undefined || !found.locked) return { error: `channel ${name} not locked` }
      const first = found.lockers.shift()
      if (first !== undefined) resume(first)
      else {
        found.locked = false
        remove(name)
      }
      return "go"
    }
    const found = channel(name)
    if (found.woken) {
      remove(name)
      return "go"
    }
    found.waiters.push(client)
    client.state = "waiting"
    return "block"
  }

  /** Runs `client`'s list from where it is until it ends, fails or blocks. */
  const runList = (client: FakeClient) => {
    while (alive && client.state === "running" && client.next < client.commands.length) {
      const command = client.commands[client.next++]!
      const outcome = command[0] === "wait-for" ? waitFor(client, command.slice(1)) : exec(command)
      if (outcome === "block") return
      if (outcome === "go") continue
      if ("error" in outcome) {
        client.error = outcome.error
        client.state = "failed"
        return
      }
      if (outcome.out !== undefined && !client.orphaned) client.out.push(outcome.out)
    }
    if (client.state === "running") client.state = alive ? "done" : "lost"
  }

  /** Runs `client`'s list, then every list a signal woke meanwhile, in the order they were woken. */
  const drive = (client: FakeClient) => {
    runList(client)
    while (woken.length > 0) runList(woken.shift()!)
  }

  return {
    channels,
    clients,
    /** Starts a client on `commands` (one tmux invocation) and runs what it can at once. */
    start: (commands: ReadonlyArray<ReadonlyArray<string>>): FakeClient => {
      const client: FakeClient = {
        id: nextId++,
        commands,
        next: 0,
        state: alive ? "running" : "failed",
        orphaned: false,
        killed: false,
        out: [],
        error: alive ? undefined : "no server running"
      }
      clients.push(client)
      if (alive) drive(client)
      return client
    },
    /** Kills the client's process: a waiter or locker stays queued, and its list never goes on. */
    kill: (client: FakeClient) => {
      client.killed = true
      if (client.state === "running") client.state = "killed"
    },
    /** Its caller dies and the process lives on: it runs the rest of its list when woken. */
    orphan: (client: FakeClient) => {
      client.orphaned = true
    },
    /** The tmux server exits: every client ends and every channel is forgotten. */
    die: () => {
      alive = false
      channels.clear()
      for (const client of clients) {
        if (client.state === "running" || client.state === "waiting" || client.state === "locking") {
          client.state = "lost"
        }
      }
    },
    /** A fresh server on the same socket (a restart after a death). */
    restart: () => {
      alive = true
    },
    get alive() {
      return alive
    },
    /** Whether a plain `wait-for` on the channel would return at once. */
    isWoken: (name: string) => channels.get(name)?.woken === true,
    /** How many clients, live or killed, wait on the channel. */
    waiters: (name: string) => channels.get(name)?.waiters.length ?? 0
  }
}

/** A tmux server's queue and channels. @category models */
export type WaitServer = ReturnType<typeof makeWaitServer>
