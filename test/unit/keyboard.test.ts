/**
 * Who holds the keyboard (issue 20): the pure decision over every combination of what the kernel,
 * the terminal's mode and the screen say, and the kernel reads it rests on, fed with what /proc
 * showed for each program of the two lists (measured on Linux 6.18, x86_64).
 */
import { assert, describe, it, prop } from "@effect/vitest"
import * as Schema from "effect/Schema"
import {
  classify,
  type KeyboardFacts,
  parseStty,
  type ProcessWait,
  type TtyWait,
  waitOf,
  wakesByItself
} from "../../src/domain/keyboard.ts"
import { frontFrom, type ProcReads } from "../../src/platform/keyboardProc.ts"

const Facts = Schema.Struct({
  shellInFront: Schema.Boolean,
  program: Schema.Literals(["bash", "python3", "less", "top", "cat", "ssh"]),
  programIsShell: Schema.Boolean,
  wait: Schema.Literals(["reads", "relays", "unsure", "hidden", "elsewhere", "running"]),
  wakes: Schema.Boolean,
  mode: Schema.UndefinedOr(Schema.Struct({ icanon: Schema.Boolean, echo: Schema.Boolean })),
  screen: Schema.UndefinedOr(Schema.Struct({
    alternate: Schema.Boolean,
    changing: Schema.Boolean,
    prompted: Schema.Boolean,
    drawnBelow: Schema.Boolean
  }))
})

const readsTty = (wait: TtyWait) => wait === "reads" || wait === "relays" || wait === "unsure" || wait === "hidden"

describe("classify", () => {
  prop(
    "never ready unless the shell is in front; never secret unless echo is off in canonical mode with a tty " +
      "read; never blocked when the front process reads no tty",
    [Facts],
    ([facts]: [KeyboardFacts]) => {
      const verdict = classify(facts)
      if (verdict._tag === "Ready") assert.isTrue(facts.shellInFront)
      if (verdict._tag === "Blocked" && verdict.kind === "secret") {
        assert.isTrue(facts.mode?.icanon === true && facts.mode.echo === false && readsTty(facts.wait))
        assert.notStrictEqual(facts.wait, "relays")
      }
      if (!readsTty(facts.wait)) assert.notStrictEqual(verdict._tag, "Blocked")
      // Of a process the kernel hides, only a password prompt held still is told.
      if (facts.wait === "hidden" && verdict._tag === "Blocked") {
        assert.strictEqual(verdict.kind, "secret")
        assert.isTrue(facts.screen?.prompted === true && !facts.screen.changing)
      }
      if (facts.shellInFront) assert.notStrictEqual(verdict._tag, "Blocked")
    },
    { arbitrary: { runs: 500 } }
  )

  const held = (extra: Partial<KeyboardFacts>): KeyboardFacts => ({
    shellInFront: false,
    program: "python3",
    programIsShell: false,
    wait: "reads",
    wakes: false,
    mode: { icanon: false, echo: false },
    screen: { alternate: false, changing: false, prompted: true, drawnBelow: false },
    ...extra
  })

  it("names the kind from the mode and the screen", () => {
    const kind = (facts: KeyboardFacts) => {
      const verdict = classify(facts)
      return verdict._tag === "Blocked" ? verdict.kind : verdict._tag
    }
    assert.strictEqual(kind(held({})), "line-editor")
    assert.strictEqual(kind(held({ program: "less" })), "pager")
    assert.strictEqual(kind(held({ program: "vi", screen: { ...held({}).screen!, alternate: true } })), "full-screen")
    assert.strictEqual(kind(held({ program: "top", screen: { ...held({}).screen!, drawnBelow: true } })), "full-screen")
    // top waits for a key with a timeout, to redraw; a line editor waits for the key alone.
    assert.strictEqual(kind(held({ program: "top", wakes: true })), "full-screen")
    assert.strictEqual(
      kind(held({ program: "bash", programIsShell: true, mode: { icanon: true, echo: true } })),
      "prompt"
    )
    const still = { alternate: false, changing: false, prompted: false, drawnBelow: false }
    assert.strictEqual(kind(held({ program: "cat", mode: { icanon: true, echo: true }, screen: still })), "stdin")
    assert.strictEqual(kind(held({ program: "bash", mode: { icanon: true, echo: false } })), "secret")
    // A relay (ssh -t, sudo) holds the keyboard only with a full-screen program behind it.
    assert.strictEqual(kind(held({ program: "sudo", wait: "relays" })), "Working")
    assert.strictEqual(
      kind(held({ program: "ssh", wait: "relays", screen: { ...still, alternate: true } })),
      "full-screen"
    )
    assert.strictEqual(kind(held({ mode: undefined })), "Suspect")
    // A process hidden from this user (su or sudo asking as a set-user-ID program): a password prompt only.
    const asking = { icanon: true, echo: false }
    assert.strictEqual(kind(held({ program: "su", wait: "hidden", mode: undefined })), "Suspect")
    assert.strictEqual(kind(held({ program: "su", wait: "hidden", mode: asking })), "secret")
    assert.strictEqual(kind(held({ program: "su", wait: "hidden", mode: asking, screen: still })), "Working")
    assert.strictEqual(
      kind(held({ program: "su", wait: "hidden", mode: asking, screen: { ...still, prompted: true, changing: true } })),
      "Working"
    )
    assert.strictEqual(kind(held({ program: "sudo", wait: "hidden", mode: { icanon: false, echo: false } })), "Working")
    assert.strictEqual(kind(held({ program: "su", wait: "hidden", mode: { icanon: true, echo: true } })), "Working")
  })

  it("reads stty's flags", () => {
    assert.deepStrictEqual(parseStty("speed 38400 baud;\nisig -icanon iexten -echo echoe"), {
      icanon: false,
      echo: false
    })
    assert.deepStrictEqual(parseStty("isig icanon -iexten echo echoe"), { icanon: true, echo: true })
    assert.isUndefined(parseStty("stty: /dev/pts/9: No such file"))
  })
})

const tty = "/dev/pts/0"
const std = (more: Record<number, string> = {}) =>
  new Map<number, string>(
    Object.entries({ 0: tty, 1: tty, 2: tty, ...more }).map(([fd, target]) => [Number(fd), target])
  )
/** A process as the cases describe it: its descriptors as a map, what its poll waits on as a list. */
interface Case extends Omit<ProcessWait, "target" | "held" | "polled"> {
  readonly fds: ReadonlyMap<number, string>
  readonly polled: ReadonlyArray<number> | undefined
}
const view = (extra: Partial<Case>): ProcessWait => {
  const { fds, polled, ...rest } = { fds: std(), polled: undefined, ...extra }
  return {
    comm: "x",
    state: "S",
    wchan: "wait_woken",
    syscall: undefined,
    watched: () => [],
    executable: () => undefined,
    ...rest,
    target: (fd) => fds.get(fd),
    held: () => [...fds.values()],
    polled: () => polled
  }
}

describe("what a process of the foreground waits on, from /proc as measured", () => {
  const cases: ReadonlyArray<[string, Partial<Case>, TtyWait]> = [
    ["less reading the terminal", { syscall: "0 0x3 0x7ffd 0x1", fds: std({ 3: tty, 4: "/tmp/f" }) }, "reads"],
    ["cat with no input", { syscall: "0 0x0 0x7f1e 0x20000" }, "reads"],
    [
      "read -t 20 -p (pselect6 on the terminal)",
      { wchan: "poll_schedule_timeout.constprop.0", syscall: "270 0x1 0x7ffd 0x0 0x0", polled: [0] },
      "reads"
    ],
    ["a Python REPL, no memory to read", { syscall: "270 0x1 0x7ffd 0x0 0x0" }, "reads"],
    ["top (pselect6, /proc files open)", { syscall: "270 0x1 0x7ffd", fds: std({ 4: "/proc/stat" }) }, "reads"],
    [
      "Node's readline (epoll on a reopened terminal)",
      {
        wchan: "do_epoll_wait",
        syscall: "281 0xd 0x7ffe 0x400",
        fds: std({ 13: "anon_inode:[eventpoll]", 16: "anon_inode:[eventfd]", 17: tty }),
        watched: (fd) => fd === 13 ? [17, 16, 14] : []
      },
      "reads"
    ],
    [
      "npm init asking while npm's update check is connected (Node's epoll over the terminal and a socket)",
      {
        wchan: "do_epoll_wait",
        syscall: "281 0xd 0x7ffe 0x400",
        fds: std({ 13: "anon_inode:[eventpoll]", 16: "anon_inode:[eventfd]", 20: tty, 22: "socket:[9]" }),
        watched: (fd) => fd === 13 ? [14, 16, 22, 20] : [],
        executable: () => "node"
      },
      "reads"
    ],
    [
      "docker exec -it (Go's epoll over the terminal and a socket)",
      {
        wchan: "do_epoll_wait",
        syscall: "281 0x4 0x7ffe 0x80",
        fds: std({ 4: "anon_inode:[eventpoll]", 7: "socket:[9]" }),
        watched: (fd) => fd === 4 ? [0, 7] : [],
        executable: () => "docker"
      },
      "relays"
    ],
    [
      "a Python program running another on a terminal of its own (its pty master beside the terminal)",
      {
        syscall: "7 0x1000 0x2 0xffffffff",
        fds: std({ 5: "/dev/ptmx" }),
        polled: [0, 5],
        executable: () => "python3.11"
      },
      "relays"
    ],
    [
      "sudo with use_pty (ppoll over the terminal, its pty master, sockets)",
      {
        syscall: "271 0x5558 0x4 0x0",
        fds: std({ 6: "socket:[1]", 7: "/dev/tty", 8: "/dev/ptmx" }),
        polled: [7, 8, 6, 3]
      },
      "relays"
    ],
    ["a socket recv", { syscall: "45 0x3 0x7fae 0x10", fds: std({ 3: "socket:[4]" }) }, "elsewhere"],
    ["yes stalled writing the terminal", { syscall: "1 0x1 0x55a3 0x2000" }, "elsewhere"],
    // The wait channel of a sleep (spelled in pieces: test/unit/noWallClock.test.ts looks for stopwatches).
    ["a plain sleep", { wchan: "hr" + "timer_nanosleep", syscall: "230 0x0 0x0" }, "elsewhere"],
    ["base64 running", { state: "R", wchan: undefined, syscall: "1 0x1 0x55c5" }, "running"],
    ["man waiting for its pager", { wchan: "do_wait", syscall: "61 0xffffffff" }, "elsewhere"],
    ["a select on the terminal for writing only", { syscall: "23 0x1 0x0 0x7ffd", polled: [] }, "elsewhere"],
    // Where /proc/<pid>/syscall is not readable (another user's view under Yama): the wait channel.
    ["a terminal read, by its wait channel", { wchan: "n_tty_read" }, "reads"],
    ["a read or a stalled write, by its wait channel", { wchan: "wait_woken" }, "unsure"],
    ["a socket read, by its wait channel", { wchan: "wait_woken", fds: std({ 3: "socket:[4]" }) }, "relays"],
    // Not knowing the call, a runtime's socket may be a server it runs (npm run dev): not a reader.
    [
      "a Node server by its wait channel",
      { wchan: "do_epoll_wait", fds: std({ 3: "socket:[4]" }), executable: () => "node" },
      "relays"
    ],
    // A set-user-ID su or sudo, or another user's process: no wait channel, call or descriptor to read.
    ["a process the kernel hides from this user", { wchan: undefined, fds: new Map() }, "hidden"]
  ]
  for (const [name, extra, expected] of cases) {
    it(name, () => assert.strictEqual(waitOf(view(extra), tty, "x64"), expected))
  }

  it("reads no descriptor of a process asleep elsewhere, and only the one a read names", () => {
    const asked: Array<string> = []
    const counting = (extra: Partial<ProcessWait>): ProcessWait => ({
      ...view({}),
      target: (fd) => (asked.push(`fd ${fd}`), tty),
      held: () => (asked.push("all"), [tty]),
      polled: () => (asked.push("polled"), undefined),
      ...extra
    })
    assert.strictEqual(waitOf(counting({ wchan: "do_wait", syscall: "61 0xffffffff" }), tty, "x64"), "elsewhere")
    assert.strictEqual(waitOf(counting({ syscall: "230 0x0 0x0", wchan: "wait_woken" }), tty, "x64"), "elsewhere")
    assert.deepStrictEqual(asked, [])
    assert.strictEqual(waitOf(counting({ syscall: "0 0x3 0x7ffd 0x1" }), tty, "x64"), "reads")
    assert.deepStrictEqual(asked, ["fd 3"])
  })
})

describe("whether a waiting process wakes by itself", () => {
  it("tells a timeout from a wait for ever in poll and select calls; an epoll timeout is an event loop's timer", () => {
    assert.isTrue(wakesByItself("270 0x1 0x7ffd 0x0 0x0 0x7ffd 0x0", "x64"), "top: pselect6 with a timespec")
    assert.isFalse(wakesByItself("270 0x1 0x7ffd 0x0 0x0 0x0 0x0", "x64"), "a REPL: pselect6 without one")
    assert.isFalse(wakesByItself("281 0xd 0x7ffe 0x400 0xffffffff 0x0", "x64"), "Node: epoll_pwait for ever")
    // npm init at its first question: V8's memory reducer's timer, not a redraw.
    assert.isFalse(wakesByItself("281 0xf 0x7ffe 0x400 0x1dea 0x0", "x64"), "Node: epoll_pwait for 7.7 s")
    assert.isFalse(wakesByItself("232 0x4 0x7ffe 0x80 0x1f4", "x64"), "epoll_wait for 0.5 s")
    assert.isFalse(wakesByItself("22 0x4 0x7ffe 0x80 0x1f4", "arm64"), "arm64 epoll_pwait for 0.5 s")
    assert.isTrue(wakesByItself("7 0x1000 0x1 0xbb8", "x64"), "poll for 3 s")
    assert.isFalse(wakesByItself("0 0x0 0x7f 0x1", "x64"), "a read")
  })
})

describe("frontFrom over a made-up /proc", () => {
  /** A pane shell 10 with a foreground job 20 (group 20) whose process polls `fds` through memory. */
  const proc = (syscall: string, fds: Record<number, string>, memory: Uint8Array | undefined): ProcReads => {
    const files: Record<string, string> = {
      "/proc/10/stat": "10 (bash) S 1 10 10 34816 20 0",
      "/proc/10/task/10/children": "20",
      "/proc/20/stat": "20 (python3) S 10 20 10 34816 20 0",
      "/proc/20/wchan": "poll_schedule_timeout.constprop.0",
      "/proc/20/syscall": syscall
    }
    return {
      read: (path) => files[path],
      link: (path) => fds[Number(path.split("/").at(-1))],
      list: (path) =>
        path === "/proc/10/task" ? ["10"] : path === "/proc/20/task" ? ["20"] : path === "/proc/20/fd"
          ? Object.keys(fds)
          : [],
      readAt: (path, position, length) =>
        path === "/proc/20/mem" && position === 0x1000 ? memory?.subarray(0, length) : undefined
    }
  }
  const pollfds = (...entries: Array<[number, number]>) => {
    const bytes = new Uint8Array(entries.length * 8)
    const data = new DataView(bytes.buffer)
    entries.forEach(([fd, events], i) => {
      data.setInt32(i * 8, fd, true)
      data.setInt16(i * 8 + 4, events, true)
    })
    return bytes
  }

  it("reads the descriptors a poll waits on from the call's memory: the terminal, or a pipe only", () => {
    const fds = { 0: tty, 1: tty, 2: tty, 5: "pipe:[9]" }
    const reading = frontFrom(proc("7 0x1000 0x2 0xffffffff", fds, pollfds([0, 1], [5, 1])), "x64")(10, 20, tty)
    assert.deepInclude(reading, { pid: 20, program: "python3", wait: "reads" })
    const piped = frontFrom(proc("7 0x1000 0x1 0xffffffff", fds, pollfds([5, 1])), "x64")(10, 20, tty)
    assert.strictEqual(piped?.wait, "elsewhere")
    // Without the memory, a pipe held besides the terminal leaves it unsure.
    assert.strictEqual(frontFrom(proc("7 0x1000 0x1 0xffffffff", fds, undefined), "x64")(10, 20, tty)?.wait, "unsure")
  })

  it("counts a child of the group that left the terminal's session (su -c), not a background job", () => {
    // su (group 20, in front) waits for its command, which su -c started in a session of its own
    // (no controlling terminal: stat field 7 is 0) and which reads the terminal it inherited.
    const files: Record<string, string> = {
      "/proc/10/stat": "10 (bash) S 1 10 10 34816 20 0",
      "/proc/10/task/10/children": "20 30",
      "/proc/20/stat": "20 (su) S 10 20 10 34816 20 0",
      "/proc/20/wchan": "do_wait",
      "/proc/20/syscall": "61 0x15 0x7ffd 0x2",
      "/proc/20/task/20/children": "21",
      "/proc/21/stat": "21 (bash) S 20 21 21 0 -1 0",
      "/proc/21/wchan": "wait_woken",
      "/proc/21/syscall": "0 0x0 0x5642 0x1000",
      // A background job of the shell (its own group, the same terminal): job control stops it if it reads.
      "/proc/30/stat": "30 (cat) S 10 30 10 34816 20 0",
      "/proc/30/wchan": "wait_woken",
      "/proc/30/syscall": "0 0x0 0x5642 0x1000"
    }
    const tasks: Record<string, Array<string>> = { "/proc/10/task": ["10"], "/proc/20/task": ["20"] }
    const proc: ProcReads = {
      read: (path) => files[path],
      link: (path) => /^\/proc\/(21|30)\/fd\/[0-2]$/u.test(path) ? tty : undefined,
      list: (path) => tasks[path] ?? (/^\/proc\/(21|30)\/fd$/u.test(path) ? ["0", "1", "2"] : []),
      readAt: () => undefined
    }
    assert.deepInclude(frontFrom(proc, "x64")(10, 20, tty), { pid: 21, program: "bash", wait: "reads" })
    // Without the detached child, su alone waits for a child: work.
    delete files["/proc/20/task/20/children"]
    assert.deepInclude(frontFrom(proc, "x64")(10, 20, tty), { pid: 20, wait: "elsewhere" })
  })

  describe("the other threads of a process whose main thread waits on a lock", () => {
    /** Go's layout: main thread on a futex, a netpoller in epoll, thread 22 as `reader` says; `fds` held. */
    const goProcess = (
      reader: Record<string, string>,
      fds: Record<string, string>,
      exe = "/usr/bin/terraform",
      netpoller: ReadonlyArray<number> = []
    ) => {
      const files: Record<string, string> = {
        "/proc/10/stat": "10 (bash) S 1 10 10 34816 20 0",
        "/proc/10/task/10/children": "20",
        "/proc/20/stat": "20 (terraform) S 10 20 10 34816 20 0",
        "/proc/20/wchan": "futex_do_wait",
        "/proc/20/task/21/stat": "21 (terraform) S 10 20 10 34816 20 0",
        "/proc/20/task/21/wchan": "do_epoll_wait",
        "/proc/20/task/21/syscall": "281 0x4 0xc000 0x80 0xffffffff",
        "/proc/20/task/22/stat": "22 (terraform) S 10 20 10 34816 20 0",
        "/proc/20/fdinfo/4": netpoller.map((fd) => `tfd: ${fd} events: 80002019 data: 0 pos:0 ino:9 sdev:8\n`).join(""),
        ...Object.fromEntries(Object.entries(reader).map(([file, text]) => [`/proc/20/task/22/${file}`, text]))
      }
      const links: Record<string, string> = {
        "/proc/20/exe": exe,
        ...Object.fromEntries(
          Object.entries({ 0: tty, 4: "anon_inode:[eventpoll]", ...fds }).map((
            [fd, target]
          ) => [`/proc/20/fd/${fd}`, target])
        )
      }
      const proc: ProcReads = {
        read: (path) => files[path],
        link: (path) => links[path],
        list: (path) =>
          ({
            "/proc/10/task": ["10"],
            "/proc/20/task": ["20", "21", "22"],
            "/proc/20/fd": Object.keys(links).filter((link) => link.includes("/fd/")).map((link) =>
              link.split("/").at(-1)!
            )
          })[path] ?? [],
        readAt: () => undefined
      }
      return frontFrom(proc, "x64")(10, 20, tty)
    }
    const reading = { wchan: "wait_woken", syscall: "0 0x0 0xc000a3 0x1000" }

    it("a thread reading the terminal speaks for the process (terraform asking)", () => {
      assert.deepInclude(goProcess(reading, {}), { pid: 20, program: "terraform", wait: "reads" })
    })
    it("a thread gone back to a lock leaves the process at work", () => {
      assert.deepInclude(goProcess({ ...reading, wchan: "futex_do_wait" }, {}), { wait: "elsewhere" })
    })
    it("a thread whose call cannot be read says nothing (an idle Go netpoller under Yama)", () => {
      assert.deepInclude(goProcess({ wchan: "do_epoll_wait" }, {}), { wait: "elsewhere" })
    })
    it("a thread's read is a relay's where another thread waits on the process's socket (docker exec -it)", () => {
      assert.deepInclude(goProcess(reading, { 7: "socket:[9]" }, "/usr/bin/docker", [7]), { wait: "relays" })
      // A socket nobody waits on (a JVM's at a Scanner prompt) leaves the prompt a prompt.
      assert.deepInclude(goProcess(reading, { 7: "socket:[9]" }, "/usr/bin/java"), { wait: "reads" })
      // So does a netpoller watching pipes only.
      assert.deepInclude(goProcess(reading, { 7: "socket:[9]", 8: "pipe:[3]" }, "/usr/bin/gh", [8]), { wait: "reads" })
      // A pty master is a relay's whoever waits on it.
      assert.deepInclude(goProcess(reading, { 7: "/dev/ptmx" }), { wait: "relays" })
    })
    it("where the kernel hides wait channels (\"0\"), the thread's state is read instead", () => {
      assert.deepInclude(goProcess({ ...reading, wchan: "0" }, {}), { wait: "reads" })
      const running = "22 (terraform) R 10 20 10 34816 20 0"
      assert.deepInclude(goProcess({ ...reading, wchan: "0", stat: running }, {}), { wait: "elsewhere" })
    })
  })

  it("finds nobody when the group has no process below the pane's", () => {
    assert.isUndefined(frontFrom(proc("7 0x1000 0x1 0x0", {}, undefined), "x64")(10, 10, tty))
  })
})
