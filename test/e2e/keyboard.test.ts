/**
 * Who holds the keyboard (issue 20), through the SDK client on real tmux: every program the issue
 * lists as waiting for the keyboard comes back as blocked_by with its kind (not after the
 * timeout); every program it lists as working does not; a secret prompt is named and nothing is
 * typed into it; a REPL in front is refused at once; on our own socket git and man do not page;
 * output drawn by a pager says so.
 */
import { existsSync, writeFileSync } from "node:fs"
import { createServer } from "node:net"
import { basename, join } from "node:path"
import { assert, describe, it } from "vitest"
import { shellQuote } from "../../src/domain/quote.ts"
import { gitHistory } from "../support/gitHistory.ts"
import { absent, call, type Connected, structured, textOf } from "../support/mcp.ts"
import { holdsFor, stillPending, until } from "../support/poll.ts"
import { leftovers, resume, run, runHarness } from "../support/runs.ts"
import { sshdAvailable, startSshdIn, stopSshd } from "../support/sshd.ts"
import { paneShows, type TmuxWorld } from "../support/tmux.ts"

const { open } = runHarness("keyboard", { inProcess: true })
const keys = (world: TmuxWorld, pane: string, ...args: ReadonlyArray<string>) =>
  world.tmux("libtmux-mcp", "send-keys", "-t", pane, ...args)
const tag = (result: { readonly _meta?: Record<string, unknown> | undefined }) =>
  result._meta?.["com.git-pull.libtmux-mcp/error"]

/** A run that must come back blocked, long before its timeout (the request's bound is a third of it). */
const blocked = async (c: Connected, pane: string, command: string) => {
  const result = structured(
    await call(c, "run_shell_command", { pane_id: pane, command, timeout: 60 }, { timeout: 20_000 })
  )
  absent(result, "timed_out")
  assert.isDefined(result.blocked_by, `${command}: ${JSON.stringify(result)}`)
  return result
}

/** Quits what holds the pane and waits for the held run to end, leaving the pane clean. */
const release = async (world: TmuxWorld, c: Connected, pane: string, runId: string, ...quit: Array<string>) => {
  keys(world, pane, ...quit)
  const ended = await call(c, "run_shell_command", { pane_id: pane, resume: runId, timeout: 15 })
  // An interrupted run reports its status as lost: that is an end too.
  if (ended.isError === true) assert.strictEqual(tag(ended), "RunUnreported", textOf(ended))
  else absent(ended.structuredContent, "timed_out")
}

/** Answers a held run with one line and expects it to end, exit 0, with `output`. */
const answerEnds = async (c: Connected, pane: string, runId: string, answer: string, output: string) => {
  const answered = await call(c, "run_shell_command", { pane_id: pane, resume: runId, answer, timeout: 15 })
  assert.deepInclude(structured(answered), { exit_status: 0, output }, textOf(answered))
}

const python = existsSync("/usr/bin/python3")

describe.concurrent("programs that hold the keyboard come back blocked, with their kind", () => {
  it("less, vi and interactive top (full-screen or pager)", async () => {
    const { world, c, pane } = await open()
    writeFileSync(join(world.dir, "file.txt"), Array.from({ length: 200 }, (_, i) => `row ${i}`).join("\n"))
    const less = await blocked(c, pane, `less ${shellQuote(join(world.dir, "file.txt"))}`)
    assert.deepInclude(less.blocked_by, { program: "less", kind: "pager" })
    await release(world, c, pane, less.run_id, "q")
    if (existsSync("/usr/bin/vi")) {
      const vi = await blocked(c, pane, `vi ${shellQuote(join(world.dir, "file.txt"))}`)
      assert.strictEqual(vi.blocked_by.kind, "full-screen")
      await release(world, c, pane, vi.run_id, "Escape", ":q!", "Enter")
    }
    const top = await blocked(c, pane, "top")
    assert.deepInclude(top.blocked_by, { program: "top", kind: "full-screen" })
    await release(world, c, pane, top.run_id, "q")
    assert.deepStrictEqual(leftovers(world, pane), [])
  })

  it("git's pager with its default LESS=FRX, and man with a pager", async () => {
    const { world, c, pane } = await open()
    const repo = join(world.dir, "repo")
    gitHistory(repo, 60)
    const git = await blocked(c, pane, `env -u LESS GIT_PAGER=less git -C ${shellQuote(repo)} log --oneline`)
    assert.deepInclude(git.blocked_by, { program: "less", kind: "pager" })
    await release(world, c, pane, git.run_id, "q")
    if (existsSync("/usr/bin/man")) {
      const manual = await blocked(c, pane, "MANPAGER=less man ls")
      assert.strictEqual(manual.blocked_by.kind, "pager")
      await release(world, c, pane, manual.run_id, "q")
    }
  })

  it("read -p, read -t 20 -p and cat with no input (prompt, stdin)", async () => {
    const { world, c, pane } = await open()
    const asked = await blocked(c, pane, "read -p 'name? ' answer; echo got $answer")
    assert.deepInclude(asked.blocked_by, { kind: "prompt" })
    keys(world, pane, "-l", "bob")
    keys(world, pane, "Enter")
    assert.deepInclude(await resume(c, pane, asked.run_id, 10), { exit_status: 0, output: "bob\ngot bob" })
    const timed = await blocked(c, pane, "read -t 20 -p 'name? ' answer")
    assert.deepInclude(timed.blocked_by, { kind: "prompt" })
    await release(world, c, pane, timed.run_id, "Enter")
    const cat = await blocked(c, pane, "cat")
    assert.deepInclude(cat.blocked_by, { program: "cat", kind: "stdin" })
    await release(world, c, pane, cat.run_id, "C-d")
    assert.deepStrictEqual(leftovers(world, pane), [])
  })

  it.skipIf(!python)("a Python REPL, Python input() with readline, a Node readline prompt (line editors)", async () => {
    const { world, c, pane } = await open()
    const repl = await blocked(c, pane, "python3 -q")
    assert.deepInclude(repl.blocked_by, { program: "python3", kind: "line-editor" })
    await release(world, c, pane, repl.run_id, "C-d")
    const input = await blocked(c, pane, "python3 -c 'import readline; print(input(\"name? \"))'")
    assert.deepInclude(input.blocked_by, { program: "python3", kind: "line-editor" })
    await release(world, c, pane, input.run_id, "-l", "x\n")
    // It allocates before it asks, as npm init does: V8's collector then leaves an 8 s timer on the
    // event loop, which is not a redraw.
    const script = join(world.dir, "ask.js")
    writeFileSync(
      script,
      "let kept = []; for (let i = 0; i < 2e6; i++) kept.push({ i }); kept = null\n" +
        "require('readline').createInterface({ input: process.stdin, output: process.stdout })" +
        ".question('package name: ', (answer) => { console.log(answer); process.exit(0) })\n"
    )
    const node = await blocked(c, pane, `${process.execPath} ${shellQuote(script)}`)
    // Node names its main thread, and so the process, "MainThread"; the program is the one run.
    assert.deepInclude(node.blocked_by, { program: basename(process.execPath), kind: "line-editor" })
    await release(world, c, pane, node.run_id, "-l", "pkg\n")
    assert.deepStrictEqual(leftovers(world, pane), [])
  })

  it("a Node prompt with a connection of its own open (npm init's update check)", async ({ onTestFinished }) => {
    const { world, c, pane } = await open()
    // The connection stays open, unanswered, in the same event loop as the prompt: it is not a relay.
    let connected = false
    const server = createServer(() => (connected = true))
    onTestFinished(() => void server.close())
    await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve))
    const { port } = server.address() as { port: number }
    const script = join(world.dir, "ask-connected.js")
    writeFileSync(
      script,
      `const socket = require('net').connect(${port}, '127.0.0.1'); socket.on('error', () => {})\n` +
        "require('readline').createInterface({ input: process.stdin, output: process.stdout })" +
        ".question('package name: ', (answer) => { console.log(answer); process.exit(0) })\n"
    )
    const node = await blocked(c, pane, `${process.execPath} ${shellQuote(script)}`)
    await until("the program to have connected before it asked", () => connected)
    assert.deepInclude(node.blocked_by, { program: basename(process.execPath), kind: "line-editor" })
    await release(world, c, pane, node.run_id, "-l", "pkg\n")
    assert.deepStrictEqual(leftovers(world, pane), [])
  })

  // Go programs (terraform asking "Enter a value", gh, docker login) read the terminal so: the main
  // thread waits on a lock while another reads.
  it("a prompt read by a thread other than the main one: a Node worker, Python input() in a thread", async () => {
    const { world, c, pane } = await open()
    const script = join(world.dir, "worker-asks.js")
    writeFileSync(
      script,
      "const { Worker } = require('worker_threads')\n" +
        "process.stdout.write('name? ')\n" +
        "new Worker(\"const b = Buffer.alloc(64); const n = require('fs').readSync(0, b); " +
        "console.log('got ' + b.toString('utf8', 0, n).trim())\", { eval: true })\n"
    )
    const worker = await blocked(c, pane, `${process.execPath} ${shellQuote(script)}`)
    assert.deepInclude(worker.blocked_by, { program: basename(process.execPath), kind: "prompt" })
    await answerEnds(c, pane, worker.run_id, "ann", "ann\ngot ann")
    if (python) {
      const threaded = await blocked(
        c,
        pane,
        "python3 -c 'import threading; " +
          "t = threading.Thread(target=lambda: print(\"got\", input(\"name? \"))); t.start(); t.join()'"
      )
      assert.deepInclude(threaded.blocked_by, { program: "python3", kind: "prompt" })
      await release(world, c, pane, threaded.run_id, "-l", "bob\n")
    }
    assert.deepStrictEqual(leftovers(world, pane), [])
  })

  it.skipIf(!existsSync("/usr/bin/java"))(
    "a Java prompt: Scanner on System.in, read by the JVM's main thread",
    async () => {
      const { world, c, pane } = await open()
      // The launcher's first thread waits for the Java main thread, which reads; the JVM holds a socket
      // nobody waits on.
      const source = join(world.dir, "Ask.java")
      writeFileSync(
        source,
        "public class Ask { public static void main(String[] a) { System.out.print(\"name? \"); System.out.flush(); " +
          "System.out.println(\"got \" + new java.util.Scanner(System.in).nextLine()); } }\n"
      )
      const java = await blocked(c, pane, `java ${shellQuote(source)}`)
      assert.deepInclude(java.blocked_by, { program: "java", kind: "prompt" })
      await answerEnds(c, pane, java.run_id, "ann", "ann\ngot ann")
      assert.deepStrictEqual(leftovers(world, pane), [])
    }
  )

  it("read -s asks a secret: named at once, pointing to the attach command, with nothing typed", async () => {
    const { world, c, pane } = await open()
    const secret = await blocked(c, pane, "read -s -p 'Password: ' pw; echo got ${#pw}")
    assert.deepInclude(secret.blocked_by, { kind: "secret" })
    assert.include(secret.blocked_by.next_step, "do not type one you were not given")
    assert.include(secret.blocked_by.next_step, `-S ${shellQuote(world.socketPath("libtmux-mcp"))} attach`)
    // Nothing was typed for it: the person types it.
    keys(world, pane, "-l", "hunter2")
    keys(world, pane, "Enter")
    // The rest of the prompt's row: read -s echoes no newline, so echo's words go on it.
    assert.deepInclude(await resume(c, pane, secret.run_id, 10), {
      exit_status: 0,
      output: "got 7",
      output_first_line: "continues"
    })
  })
})

describe.concurrent("programs that work are not called blocked", () => {
  /** A run that must finish by itself, with no blocked_by on the way. */
  const works = async (
    c: Connected,
    pane: string,
    command: string,
    output?: string,
    during?: (running: Promise<unknown>) => Promise<void>
  ) => {
    const running = run(c, pane, command, { timeout: 30 })
    await during?.(running)
    const result = await running
    assert.isUndefined(result.blocked_by, `${command}: ${JSON.stringify(result)}`)
    assert.deepInclude(result, { exit_status: 0 }, command)
    absent(result, "timed_out")
    if (output !== undefined) assert.strictEqual(result.output, output)
  }

  // Each test's own listener and sshd go when it ends (its neighbours run on meanwhile).
  it("a plain sleep, stty -echo then sleep, and a socket read that needs no input", async ({ onTestFinished }) => {
    const { c, pane } = await open()
    await works(c, pane, "sleep 3; echo slept", "slept")
    await works(c, pane, "stty -echo; sleep 3; stty echo; echo quiet", "quiet")
    if (python) {
      // The program waits on its socket for 3 s while the run watches it; then the answer comes.
      let answer: (() => void) | undefined
      const server = createServer((socket) => (answer = () => socket.end("hello")))
      onTestFinished(() => void server.close())
      await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve))
      const { port } = server.address() as { port: number }
      const command =
        `python3 -c 'import socket; s = socket.create_connection(("127.0.0.1", ${port})); print(s.recv(10).decode())'`
      const waitsOnItsSocket = async (running: Promise<unknown>) => {
        await until("the program to connect", () => answer !== undefined)
        await holdsFor(3_000, "the run does not answer while its program waits on the socket", stillPending(running))
        answer!()
      }
      await works(c, pane, command, "hello", waitsOnItsSocket)
      // A relay in threads, as `docker exec -it` is in goroutines: one thread copies the terminal to
      // the socket, the main one waits on the socket for the answer. What is behind it cannot be seen.
      const relay = "python3 -c 'import os, socket, threading; " +
        `s = socket.create_connection(("127.0.0.1", ${port})); ` +
        "threading.Thread(target=lambda: [s.sendall(os.read(0, 100)) for _ in iter(int, 1)], daemon=True).start(); " +
        "print(s.recv(10).decode(), flush=True); os._exit(0)'"
      answer = undefined
      await works(c, pane, relay, "hello", waitsOnItsSocket)
    }
  })

  // Each writer keeps its tmux server parsing at full speed for the whole timeout, and the interrupt's
  // prompt comes after tmux has drawn what was already written: on a loaded machine that took 31 s.
  it("heavy writers: base64 of /dev/urandom and yes, stalled by the terminal, time out unblocked", async () => {
    const { world, c, pane } = await open()
    for (const command of ["base64 /dev/urandom", "yes"]) {
      const result = await run(c, pane, command, { timeout: 4, max_lines: 5 })
      assert.isUndefined(result.blocked_by, `${command}: ${JSON.stringify(result.blocked_by)}`)
      assert.isTrue(result.timed_out, command)
      await release(world, c, pane, result.run_id, "C-c")
    }
  }, 60_000)

  it.skipIf(!existsSync("/usr/bin/sudo"))(
    "sudo running sleep (it keeps the terminal raw for the whole command)",
    async () => {
      const { c, pane } = await open()
      await works(c, pane, "sudo -n sleep 4; echo done", "done")
    }
  )

  const sshTitle = "ssh -t to localhost running sleep"
  it.skipIf(!sshdAvailable)(
    sshdAvailable ? sshTitle : `${sshTitle} (skipped: no sshd here; install openssh-server to run it)`,
    async ({ onTestFinished }) => {
      const { world, c, pane } = await open()
      const { sshConfig, daemon } = await startSshdIn(world)
      onTestFinished(() => stopSshd(daemon))
      await works(c, pane, `ssh -t -F ${shellQuote(sshConfig)} testhost sleep 4; echo back`, "back")
    },
    60_000
  )
})

describe.concurrent("refusals and pagers", () => {
  it.skipIf(!python)("refuses at once a pane whose front program is a Python REPL, naming it", async () => {
    const { world, c, pane } = await open()
    await run(c, pane, "true")
    keys(world, pane, "python3 -q", "Enter")
    await paneShows(world, pane, "#{pane_current_command}", (command) => command.startsWith("python"))
    // Refused without spending the timeout: the request's bound is a third of it.
    const refused = await call(
      c,
      "run_shell_command",
      { pane_id: pane, command: "echo hi", timeout: 60 },
      { timeout: 20_000 }
    )
    assert.strictEqual(tag(refused), "PaneNotReady")
    assert.include(textOf(refused), "python3")
    assert.include(textOf(refused), "send_keys")
    assert.include(textOf(refused), "nothing was typed")
    // The way out that fits a REPL: "q" would be typed into it as code.
    assert.include(textOf(refused), "quit it with send_keys with enter false (C-d, or its own exit command)")
  })

  it("on our own socket git log and git diff print everything, no pager; less still says it drew", async () => {
    const { world, c, pane } = await open("/bin/bash", { LIBTMUX_TMUX_CONFIG: "minimal" })
    const repo = join(world.dir, "repo")
    gitHistory(repo, 40, { file: true })
    const log = await run(c, pane, `git -C ${shellQuote(repo)} log --oneline`, { timeout: 30 })
    assert.deepInclude(log, { exit_status: 0 })
    absent(log, "timed_out", "truncated_lines")
    assert.isUndefined(log.output_is_screen)
    assert.strictEqual((log.output as string).split("\n").length, 40)
    assert.include(log.output, "change 1\n".slice(0, 8))
    const diff = await run(c, pane, `git -C ${shellQuote(repo)} diff HEAD~5`, { timeout: 30 })
    assert.deepInclude(diff, { exit_status: 0 })
    absent(diff, "timed_out")
    assert.include(diff.output, "+40")
    assert.include(diff.output, "+36")
    writeFileSync(join(world.dir, "file.txt"), Array.from({ length: 200 }, (_, i) => `row ${i}`).join("\n"))
    const less = await run(c, pane, `less ${shellQuote(join(world.dir, "file.txt"))}`, { timeout: 30 })
    assert.include(less.output_is_screen, "pager")
    keys(world, pane, "q")
    const after = await resume(c, pane, less.run_id, 10)
    // less drew on the alternate screen: what the run printed after it left is the stream (issue 58).
    assert.isUndefined(after.output_is_screen)
  })
})
