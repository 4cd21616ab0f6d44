/**
 * Write-ahead audit: no call acts without its intent record. A client that never reads stderr
 * moves the records to a per-user file instead of putting the server out of service; a configured
 * audit file that fails refuses calls; an audit path that is not a regular file of this user
 * stops startup.
 */
import { Client } from "@modelcontextprotocol/sdk/client/index.js"
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js"
import type { CallToolResult } from "@modelcontextprotocol/sdk/types.js"
import { spawn } from "node:child_process"
import { execFileSync } from "node:child_process"
import {
  chmodSync,
  chownSync,
  closeSync,
  constants,
  existsSync,
  linkSync,
  openSync,
  readdirSync,
  readFileSync,
  readSync,
  statSync,
  symlinkSync,
  writeFileSync
} from "node:fs"
import { join } from "node:path"
import { assert, describe, it } from "vitest"
import { shellQuote } from "../../src/domain/quote.ts"
import { harness } from "../support/harness.ts"
import { binPath, serverEnv, textOf } from "../support/mcp.ts"
import { until } from "../support/poll.ts"
import { rounds } from "../support/rounds.ts"
import type { TmuxWorld } from "../support/tmux.ts"

const h = harness("audit-ahead")
const socket = "libtmux-mcp"

/**
 * A client whose server's stderr is a pipe (a FIFO, 64 KiB, like the pipe(2) most clients make)
 * that nobody reads until `drain`; the server is started through `command`.
 */
const connectRaw = async (
  world: TmuxWorld,
  env: Record<string, string>,
  command: ReadonlyArray<string> = [process.execPath, binPath]
) => {
  const fifo = join(world.dir, `stderr-${Math.random().toString(36).slice(2)}.fifo`)
  execFileSync("mkfifo", [fifo])
  const readEnd = openSync(fifo, constants.O_RDONLY | constants.O_NONBLOCK)
  const writeEnd = openSync(fifo, constants.O_WRONLY)
  const transport = new StdioClientTransport({
    command: command[0]!,
    args: command.slice(1),
    env: serverEnv(world, env),
    cwd: world.dir,
    stderr: writeEnd
  })
  const client = new Client({ name: "libtmux-mcp-tests", version: "0.0.0" })
  try {
    await client.connect(transport)
  } finally {
    closeSync(writeEnd)
  }
  const call = async (name: string, args: Record<string, unknown>) =>
    (await client.callTool({ name, arguments: args })) as CallToolResult
  /** Closes the client and returns everything the server wrote on stderr. */
  const drain = async (): Promise<string> => {
    await client.close()
    const chunks: Array<Buffer> = []
    const buffer = Buffer.alloc(65536)
    await until(
      "the server's stderr to end",
      () => {
        // EAGAIN (a throw): the server has not exited yet.
        const count = readSync(readEnd, buffer)
        chunks.push(Buffer.from(buffer.subarray(0, count)))
        return count === 0
      },
      Boolean,
      { timeoutMs: 5_000 }
    ).catch(() => undefined)
    closeSync(readEnd)
    return Buffer.concat(chunks).toString("utf8")
  }
  return { client, call, drain }
}

/** A pane made with tmux directly, running `command`. */
const paneRunning = (world: TmuxWorld, command: string): string =>
  world.tmux(socket, "new-session", "-d", "-P", "-F", "#{pane_id}", command).trim()

const records = (text: string): Array<any> =>
  text.split("\n").filter((line) => line.startsWith("{")).map((line) => JSON.parse(line))

/** Runs the server until it exits, killing it after `ms` (a hang is a failure). */
const exitOf = (
  world: TmuxWorld,
  env: Record<string, string>,
  ms = 10_000
): Promise<{ code: number | null; stderr: string; hung: boolean }> =>
  new Promise((resolve) => {
    // Node kills a child still running after `timeout` with `killSignal`.
    const child = spawn(process.execPath, [binPath], {
      env: serverEnv(world, env),
      cwd: world.dir,
      timeout: ms,
      killSignal: "SIGKILL"
    })
    let stderr = ""
    child.stderr.on("data", (chunk: Buffer) => (stderr += chunk.toString("utf8")))
    child.on("close", (code, signal) => resolve({ code, stderr, hung: signal === "SIGKILL" }))
    child.stdin.end()
  })

// About 600 bytes of records a call: 64 KiB of pipe fill within the first 110 calls.
const calls = rounds(250, 600)

describe("write-ahead audit", () => {
  it(
    "a client that never reads stderr: every call that reached the pane has its intent " +
      "record, and after a second the records move to a 0600 file and calls succeed",
    async () => {
      const world = h.world()
      const state = join(world.dir, "state")
      const out = join(world.dir, "out.txt")
      const pane = paneRunning(world, `cat > ${shellQuote(out)}`)
      const server = await connectRaw(world, { LIBTMUX_TOOLSETS: "inspect,execute", XDG_STATE_HOME: state })
      let failures: Array<string> = []
      let capabilities: any
      let stderr = ""
      try {
        for (let i = 0; i < calls; i++) {
          const result = await server.call("send_keys", { pane_id: pane, keys: `k${i}` })
          if (result.isError === true) failures.push(textOf(result))
        }
        const read = await server.client.readResource({ uri: "tmux://capabilities" })
        capabilities = JSON.parse((read.contents[0] as { text: string }).text)
      } finally {
        stderr = await server.drain()
      }
      const lines = () =>
        existsSync(out) ? readFileSync(out, "utf8").split("\n").filter((line) => line !== "").length : 0
      await until(`${calls} lines in the pane's file`, lines, (count) => count >= calls, { timeoutMs: 10_000 }).catch(
        () => undefined
      )
      const folder = join(state, "libtmux-mcp")
      const files = existsSync(folder) ? readdirSync(folder) : []
      const file = join(folder, files[0] ?? "none")
      const all = [...records(stderr), ...(files.length === 0 ? [] : records(readFileSync(file, "utf8")))]
      const intents = all.filter((record) => record.event === "tool_call_intent" && record.tool === "send_keys")
      // Every call that reached the pane was recorded before it acted.
      assert.strictEqual(intents.length, lines())
      assert.deepStrictEqual(failures, [])
      assert.strictEqual(lines(), calls)
      assert.deepStrictEqual(files.map((name) => /^audit-\d+\.jsonl$/.test(name)), [true])
      assert.strictEqual(statSync(file).mode & 0o777, 0o600)
      assert.strictEqual(statSync(folder).mode & 0o777, 0o700)
      assert.deepStrictEqual(intents.map((record) => record.targets), intents.map(() => [pane]))
      assert.isAbove(
        records(readFileSync(file, "utf8")).filter((record) => record.event === "tool_call_intent").length,
        0
      )
      assert.strictEqual(
        all.filter((record) => record.event === "tool_call_outcome" && record.outcome === "ok").length,
        calls
      )
      assert.deepInclude(capabilities.audit, { destination: "file", path: file })
      assert.isNotNull(capabilities.audit.moved)
      // The move is announced on stderr too, best effort: here stderr is the full pipe, so the file says it.
      assert.deepInclude(records(readFileSync(file, "utf8"))[0], {
        event: "audit_moved",
        from: "stderr",
        reason: "stderr stayed full for 1000 ms: the client does not read it"
      })
    },
    120_000
  )

  it(
    "a configured audit file that fails on write: calls are " +
      "refused with a clear error, and the pane receives nothing",
    async () => {
      const world = h.world()
      const log = join(world.dir, "audit.jsonl")
      // Past the file-size limit below every append fails with EFBIG (Node ignores SIGXFSZ).
      writeFileSync(log, "x".repeat(4096), { mode: 0o600 })
      const pane = paneRunning(world, "cat")
      const server = await connectRaw(world, { LIBTMUX_TOOLSETS: "inspect,execute", LIBTMUX_AUDIT_LOG: log }, [
        "/bin/sh",
        "-c",
        "ulimit -f 1 && exec \"$0\" \"$@\"",
        process.execPath,
        binPath
      ])
      const results: Array<CallToolResult> = []
      try {
        results.push(await server.call("send_keys", { pane_id: pane, keys: "MARKER-TYPED" }))
        results.push(await server.call("list_panes", {}))
      } finally {
        await server.drain()
      }
      assert.notInclude(world.tmux(socket, "capture-pane", "-p", "-t", pane), "MARKER-TYPED")
      for (const result of results) {
        assert.isTrue(result.isError)
        assert.strictEqual(result._meta?.["com.git-pull.libtmux-mcp/error"], "AuditUnavailable")
        assert.match(
          textOf(result),
          /did nothing: its audit record could not be written \(.*audit\.jsonl: .*\); no call acts without its record/
        )
      }
    }
  )

  it(
    "stops startup on an audit path that is a symbolic link, a FIFO, a " +
      "device, a hard link or a folder, and sets an existing file to 0600",
    async () => {
      const world = h.world()
      const target = join(world.dir, "target.txt")
      writeFileSync(target, "")
      const link = join(world.dir, "link.jsonl")
      symlinkSync(target, link)
      const fifo = join(world.dir, "fifo.jsonl")
      execFileSync("mkfifo", [fifo])
      const hard = join(world.dir, "hard.jsonl")
      linkSync(target, hard)
      const cases: ReadonlyArray<[string, RegExp]> = [
        [link, /LIBTMUX_AUDIT_LOG .*link\.jsonl cannot be used for audit records: it is a symbolic link/],
        [fifo, /LIBTMUX_AUDIT_LOG .*fifo\.jsonl cannot be used for audit records: it is a FIFO/],
        ["/dev/full", /LIBTMUX_AUDIT_LOG \/dev\/full cannot be used for audit records: it is a device/],
        [hard, /hard\.jsonl cannot be used for audit records: it has 2 hard links/],
        [world.dir, /cannot be used for audit records: it is a directory/]
      ]
      for (const [path, message] of cases) {
        const exit = await exitOf(world, { LIBTMUX_AUDIT_LOG: path })
        assert.isFalse(exit.hung, path)
        assert.strictEqual(exit.code, 1, path)
        assert.match(exit.stderr, message)
      }
      assert.strictEqual(readFileSync(target, "utf8"), "")
      const loose = join(world.dir, "loose.jsonl")
      writeFileSync(loose, "")
      chmodSync(loose, 0o644)
      const c = await h.connect(world, { LIBTMUX_AUDIT_LOG: loose })
      await c.client.listTools()
      assert.strictEqual(statSync(loose).mode & 0o777, 0o600)
    }
  )

  it.skipIf(process.getuid?.() !== 0)("stops startup on an audit file that belongs to another user", async () => {
    const world = h.world()
    const foreign = join(world.dir, "foreign.jsonl")
    writeFileSync(foreign, "", { mode: 0o600 })
    chownSync(foreign, 1, 1)
    const exit = await exitOf(world, { LIBTMUX_AUDIT_LOG: foreign })
    assert.strictEqual(exit.code, 1)
    assert.match(exit.stderr, /cannot be used for audit records: it belongs to uid 1, not to this user \(uid 0\)/)
  })

  it("refuses calls when stderr is unwritable and the fallback folder cannot be made", async () => {
    const world = h.world()
    const blocked = join(world.dir, "blocked")
    // A file where the state folder's parent should be: the fallback file cannot be created.
    writeFileSync(blocked, "")
    const pane = paneRunning(world, "cat")
    const server = await connectRaw(world, { LIBTMUX_TOOLSETS: "inspect,execute", XDG_STATE_HOME: blocked })
    let refused: CallToolResult | undefined
    try {
      for (let i = 0; i < 600 && refused === undefined; i++) {
        const result = await server.call("send_keys", { pane_id: pane, keys: "k", enter: false })
        if (result.isError === true) refused = result
      }
    } finally {
      await server.drain()
    }
    assert.isDefined(refused)
    assert.strictEqual(refused!._meta?.["com.git-pull.libtmux-mcp/error"], "AuditUnavailable")
    assert.include(textOf(refused!), "stderr stayed full for 1000 ms: the client does not read it; the fallback file")
  }, 120_000)
})
