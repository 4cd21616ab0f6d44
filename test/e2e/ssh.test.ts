/**
 * The server on another machine over SSH, against a real OpenSSH server on loopback: its own host
 * key, sshd_config, authorized key, client config and known-hosts file in a temp folder, a `path:`
 * socket in that folder. Through the SDK client over the command `--print-config --ssh` prints:
 * tools/list, create_session, run_shell_command, a dropped connection (the remote server exits,
 * tmux and its session stay) and a reconnect that finds the session. Nothing of the account is
 * touched; sshd and the remote tmux server are ended at the end.
 */
import { Client } from "@modelcontextprotocol/sdk/client/index.js"
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js"
import { type ChildProcess, execFileSync } from "node:child_process"
import { mkdirSync, readFileSync, realpathSync, rmSync, writeFileSync } from "node:fs"
import { join } from "node:path"
import { afterEach, assert, describe, it } from "vitest"
import { shellQuote } from "../../src/domain/quote.ts"
import { binPath, commandToExit, runToExit, structured } from "../support/mcp.ts"
import { processesNaming, until } from "../support/poll.ts"
import { sshdAvailable, startSshdIn, stopSshd } from "../support/sshd.ts"
import { makeWorld, type TmuxWorld } from "../support/tmux.ts"

/** A process's environment as text, or "" once it is gone. */
const environOf = (pid: string): string => {
  try {
    return readFileSync(`/proc/${pid}/environ`, "utf8")
  } catch {
    return ""
  }
}

// CI installs openssh-server: there the test must run.
const skip = !sshdAvailable && process.env.CI !== "true"

interface Remote {
  readonly world: TmuxWorld
  readonly sshConfig: string
  readonly socket: string
  readonly daemon: ChildProcess
}

let remote: Remote | undefined
const clients: Array<Client> = []
// Worlds made before \`remote\` holds them (a start cut short by the test's timeout): removed too.
const worlds: Array<TmuxWorld> = []

afterEach(async () => {
  for (const client of clients.splice(0)) await client.close().catch(() => undefined)
  if (remote !== undefined) {
    try {
      execFileSync("tmux", ["-S", remote.socket, "kill-server"], { stdio: "ignore" })
    } catch {
      // Already gone.
    }
    await stopSshd(remote.daemon)
    // The remote shells and servers write into their folder as they exit: let them go first.
    const { world } = remote
    await until("the remote side's processes to exit", () => processesNaming(world.dir), (pids) => pids.length === 0)
    world.dispose()
    remote = undefined
  }
  for (const world of worlds.splice(0)) {
    world.dispose()
    rmSync(world.dir, { recursive: true, force: true })
  }
})

/** A private sshd on a high loopback port that accepts one generated key for this user. */
const startSshd = async (): Promise<Remote> => {
  const world = makeWorld("ssh")
  worlds.push(world)
  const { sshConfig, daemon } = await startSshdIn(world)
  return { world, sshConfig, socket: join(world.dir, "remote.sock"), daemon }
}

/** Connects through the entry `--print-config cursor --ssh` printed. */
const connectThrough = async (entry: { readonly command: string; readonly args: ReadonlyArray<string> }) => {
  const transport = new StdioClientTransport({
    command: entry.command,
    args: [...entry.args],
    env: { PATH: process.env.PATH ?? "" },
    stderr: "pipe"
  })
  let stderr = ""
  transport.stderr?.on("data", (chunk: Buffer) => void (stderr += chunk.toString()))
  const client = new Client({ name: "ssh-test", version: "0" })
  await client.connect(transport)
  clients.push(client)
  return { client, transport, stderr: () => stderr }
}

const call = async (client: Client, name: string, args: Record<string, unknown>) =>
  structured(await client.callTool({ name, arguments: args }, undefined, { timeout: 60_000 }) as never)

/** Starts the sshd and prints the entry that serves the remote socket there, through ssh. */
const printRemoteEntry = async () => {
  const host = await startSshd()
  remote = host
  const home = join(host.world.dir, "home")
  mkdirSync(home)
  // The remote panes get a HOME of their own, so no shell touches the account's files.
  const tmuxConfig = join(host.world.dir, "host.conf")
  writeFileSync(
    tmuxConfig,
    "set -s exit-empty on\nset -g default-shell /bin/bash\nset-environment " +
      `-g HOME "${home}"\nset-environment -g HISTFILE /dev/null\n`
  )
  const printed = await runToExit(host.world, {}, [
    "--print-config",
    "cursor",
    "--ssh",
    "testhost",
    "--ssh-config",
    host.sshConfig,
    "--remote-node",
    process.execPath,
    "--remote-bin",
    realpathSync(binPath),
    "--socket",
    `path:${host.socket}`,
    "--tmux-config",
    tmuxConfig,
    "--toolsets",
    "inspect,execute"
  ])
  return { printed, host }
}

describe("the server on another host over ssh", () => {
  const title = "serves through the printed ssh command, survives a dropped connection, and is found again"
  it.skipIf(skip)(
    skip ? `${title} (skipped: no /usr/sbin/sshd; install openssh-server to run it)` : title,
    async () => {
      const { printed, host } = await printRemoteEntry()
      assert.strictEqual(printed.code, 0, printed.stderr)
      assert.include(
        printed.stderr,
        `to watch there once the agent has a session: ssh -t -F ${shellQuote(host.sshConfig)} testhost tmux -N -S `
      )
      // The printed check of the remote Node runs as printed, and answers with that Node's version.
      const check = /to check the remote Node: (.*)$/mu.exec(printed.stderr)?.[1] ?? ""
      assert.strictEqual(execFileSync("sh", ["-c", check], { encoding: "utf8" }).trim(), process.version)
      const entry = JSON.parse(printed.stdout).mcpServers["libtmux-mcp-testhost"]
      assert.strictEqual(entry.command, "ssh")
      assert.includeMembers(entry.args, ["-T", "BatchMode=yes", "-F", host.sshConfig])

      const first = await connectThrough(entry)
      const socket = host.socket
      assert.include((await first.client.listTools()).tools.map((tool) => tool.name), "run_shell_command")
      const pane = (await call(first.client, "create_session", { session_name: "remote" })).pane_id as string
      const ran = await call(first.client, "run_shell_command", {
        pane_id: pane,
        command: "echo from-$(hostname -s 2>/dev/null || echo host); exit 3"
      })
      assert.strictEqual(ran.exit_status, 3)
      assert.match(ran.output as string, /^from-/u)
      await until(
        "the remote server's attach command",
        first.stderr,
        (text) => text.includes(`-S ${shellQuote(socket)} attach`)
      )

      // Drop the connection: kill the local ssh client. The remote server ends; tmux and the session stay.
      // This test's remote server: other files' servers run the same command, so it is told by the
      // socket its environment names.
      const serverPids = () =>
        execFileSync("ps", ["-eo", "pid,args"], { encoding: "utf8" }).split("\n")
          .filter((line) =>
            line.includes(realpathSync(binPath)) && line.includes(process.execPath) && !line.includes(" ssh ")
          )
          .filter((line) => environOf(line.trim().split(" ")[0]!).includes(socket))
      assert.isAbove(serverPids().length, 0)
      if (first.transport.pid !== null) process.kill(first.transport.pid, "SIGKILL")
      await until("the remote server to exit with its connection", serverPids, (pids) => pids.length === 0)
      assert.include(
        execFileSync("tmux", ["-S", host.socket, "list-sessions", "-F", "#{session_name}"], { encoding: "utf8" }),
        "remote"
      )

      const second = await connectThrough(entry)
      const sessions = await call(second.client, "list_sessions", {})
      assert.include(
        (sessions.sessions as Array<{ session_name: string }>).map((session) => session.session_name),
        "remote"
      )
    },
    // An sshd, three ssh connections and a remote server start: slow on a loaded machine.
    90_000
  )

  const watchTitle =
    "a timed-out run's watch_command, run here through sh -c, waits there through ssh until the run ends"
  it.skipIf(skip)(
    skip ? `${watchTitle} (skipped: no /usr/sbin/sshd; install openssh-server to run it)` : watchTitle,
    async () => {
      const { printed, host } = await printRemoteEntry()
      assert.strictEqual(printed.code, 0, printed.stderr)
      const entry = JSON.parse(printed.stdout).mcpServers["libtmux-mcp-testhost"]
      // The remote server is told how this machine reaches it: it cannot see this ssh command.
      assert.include(entry.args.at(-1), `'LIBTMUX_WATCH_SSH=testhost' 'LIBTMUX_WATCH_SSH_CONFIG=`)
      const { client } = await connectThrough(entry)
      const pane = (await call(client, "create_session", { session_name: "remote" })).pane_id as string
      const ran = await call(client, "run_shell_command", { pane_id: pane, command: "sleep 3; exit 7", timeout: 1 })
      assert.isTrue(ran.timed_out, JSON.stringify(ran))
      const runId = ran.run_id as string
      const line = ran.watch_command as string
      assert.match(line, /^'ssh' '-T' '-o' 'BatchMode=yes' .* '--' 'testhost' '/u)
      const endRecord = () => {
        try {
          return execFileSync("tmux", ["-S", host.socket, "show", "-pv", "-t", pane, `@lmcp_end_${runId}`], {
            encoding: "utf8",
            stdio: ["ignore", "pipe", "ignore"]
          }).trim()
        } catch {
          return ""
        }
      }
      // As a host's background runner runs it: sh -c, standard input from /dev/null, on this machine.
      const waited = await commandToExit("sh", ["-c", line], {
        env: { PATH: process.env.PATH ?? "" },
        cwd: host.world.dir
      }).then((done) => ({ ...done, endedFirst: endRecord() !== "" }))
      assert.deepStrictEqual(waited, {
        code: 0,
        stdout: `run ${runId} ended: exit status 7\n`,
        stderr: "",
        endedFirst: true
      })
      assert.deepInclude(
        await call(client, "run_shell_command", { pane_id: pane, resume: runId, timeout: 10 }),
        { exit_status: 7 }
      )
    },
    90_000
  )
})
