/**
 * Password prompts under `su` are seen as secrets within about a second, as sudo's are (issue 58):
 * the command of `su -c`, which su starts in a session of its own, reading the terminal it
 * inherited while su in front waits for it; and su's own prompt to a user who is not root, which
 * the kernel hides from that user (su is set-user-ID), as it hides the other user's command. Two
 * users are made for the file (root is needed; CI runs as root). The second case runs the server
 * without CAP_SYS_PTRACE: like any user but root, it then may not read a set-user-ID program's or
 * another user's system call and descriptors.
 */
import { Client } from "@modelcontextprotocol/sdk/client/index.js"
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js"
import { execFileSync } from "node:child_process"
import { randomBytes } from "node:crypto"
import { afterAll, assert, beforeAll, describe, it } from "vitest"
import { harness } from "../support/harness.ts"
import { absent, binPath, call, type Connected, serverEnv, structured } from "../support/mcp.ts"
import { runHarness } from "../support/runs.ts"
import { shellEnv } from "../support/shells.ts"
import type { TmuxWorld } from "../support/tmux.ts"

const { open } = runHarness("su", { inProcess: true })
const spawned = harness("su-noptrace")

/** Users can be made here: as root (CI is root; elsewhere the tests are skipped, saying why). */
const root = process.getuid?.() === 0
const canMakeUsers = root || process.env.CI === "true"
const title = (name: string) => canMakeUsers ? name : `${name} (skipped: needs root, to make its test users)`

// Names of this process's own: other checkouts may run this file at the same time.
const asker = `lmcp${process.pid}a`
const target = `lmcp${process.pid}b`
const targetPassword = randomBytes(9).toString("base64url")

beforeAll(() => {
  if (!canMakeUsers) return
  for (const user of [asker, target]) {
    execFileSync("/usr/sbin/useradd", ["--no-create-home", "--shell", "/bin/bash", user], { stdio: "ignore" })
  }
  execFileSync("/usr/sbin/chpasswd", { input: `${target}:${targetPassword}\n`, stdio: ["pipe", "ignore", "pipe"] })
})

afterAll(() => {
  if (!canMakeUsers) return
  for (const user of [asker, target]) {
    try {
      execFileSync("/usr/sbin/userdel", [user], { stdio: "ignore" })
    } catch {
      // Never made (useradd failed): nothing to remove.
    }
  }
})

const keys = (world: TmuxWorld, pane: string, ...args: ReadonlyArray<string>) =>
  world.tmux("libtmux-mcp", "send-keys", "-t", pane, ...args)

/** A run or resume that must come back as a secret prompt long before its timeout. */
const secretAsked = async (c: Connected, args: Record<string, unknown>) => {
  const result = structured(await call(c, "run_shell_command", { ...args, timeout: 60 }, { timeout: 20_000 }))
  absent(result, "timed_out")
  assert.deepInclude(result.blocked_by ?? {}, { kind: "secret" }, JSON.stringify(result))
  // Told as sudo's is, within about a second (generous here for a loaded machine).
  assert.isBelow(result.elapsed_seconds, 5, JSON.stringify(result))
  return result
}

/** Types what the person would, then Enter. */
const typeIn = (world: TmuxWorld, pane: string, text: string) => {
  // After --: a password may start with "-", which tmux would read as a flag.
  keys(world, pane, "-l", "--", text)
  keys(world, pane, "Enter")
}

/** The command su runs: a password read, and how long the answer was. */
const readsSecret = "read -sp 'Pass: ' pw; echo; echo got \\${#pw}"

describe.concurrent("su's password prompts are secrets", () => {
  it.skipIf(!canMakeUsers)(title("su -c to another user running read -sp"), async () => {
    const { world, c, pane } = await open()
    const asked = await secretAsked(c, { pane_id: pane, command: `su -c "${readsSecret}" ${target}` })
    assert.include(asked.output, "Pass: ")
    typeIn(world, pane, "hunter2")
    const done = structured(
      await call(c, "run_shell_command", { pane_id: pane, resume: asked.run_id, timeout: 15 })
    )
    assert.deepInclude(done, { exit_status: 0 })
    assert.include(done.output, "got 7")
  })

  it.skipIf(!canMakeUsers)(
    title("su's own prompt to a user who is not root, then its command's read -sp, hidden from the server"),
    async () => {
      const world = spawned.world()
      const env = serverEnv(world, shellEnv(world, "/bin/bash"))
      // The server and everything it starts lack CAP_SYS_PTRACE: /proc hides su from it, as from a user.
      const transport = new StdioClientTransport({
        command: "setpriv",
        args: ["--bounding-set", "-sys_ptrace", "--inh-caps", "-sys_ptrace", process.execPath, binPath],
        env,
        cwd: world.dir,
        stderr: "pipe"
      })
      const client = new Client({ name: "libtmux-mcp-tests", version: "0.0.0" })
      await client.connect(transport)
      const c = spawned.track({ client, stderr: () => "", close: () => client.close() })
      const pane = structured(
        await call(c, "create_session", { session_name: "su", width: 80, height: 24, start_directory: world.dir })
      ).pane_id as string
      const command = `setpriv --reuid ${asker} --regid ${asker} --clear-groups su ${target} -c "${readsSecret}"`
      const own = await secretAsked(c, { pane_id: pane, command })
      assert.deepInclude(own.blocked_by, { program: "su" })
      typeIn(world, pane, targetPassword)
      const asked = await secretAsked(c, { pane_id: pane, resume: own.run_id })
      assert.include(asked.output, "Pass: ")
      typeIn(world, pane, "hunter2")
      const done = structured(await call(c, "run_shell_command", { pane_id: pane, resume: own.run_id, timeout: 15 }))
      assert.deepInclude(done, { exit_status: 0 })
      assert.include(done.output, "got 7")
    }
  )
})
