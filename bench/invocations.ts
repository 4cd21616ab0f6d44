/**
 * How many tmux invocations run_shell_command costs (a standalone script, not a test): the server
 * is given a tmux that logs each invocation and runs the real one, then runs `true` 20 times in one
 * pane; the trailer's own client inside the shell is counted too (it runs the server's tmux by its
 * path). Usage: node bench/invocations.ts [server entry] (default dist/libtmux-mcp.js).
 */
import { execFileSync } from "node:child_process"
import { chmodSync, readFileSync, writeFileSync } from "node:fs"
import { join, resolve } from "node:path"
import { benchWorld } from "./world.ts"

const world = benchWorld()
const real = execFileSync("sh", ["-c", "command -v tmux"], { encoding: "utf8" }).trim()
const dir = resolve(world.socket, "../..")
const wrapper = join(dir, "tmux")
const log = join(dir, "invocations.log")
writeFileSync(wrapper, `#!/bin/sh\nprintf '%s\\n' "$*" >> '${log}'\nexec '${real}' "$@"\n`)
chmodSync(wrapper, 0o755)
if (process.argv[2] !== undefined) process.env.LIBTMUX_BENCH_BIN = resolve(process.argv[2])
Object.assign(world.env, { LIBTMUX_TMUX_BIN: wrapper, LIBTMUX_TOOLSETS: "inspect,execute" })

try {
  const { client } = await world.start()
  const created = await client.callTool({ name: "create_session", arguments: { session_name: "count" } })
  const pane = (created.structuredContent as { pane_id: string }).pane_id
  const runTrue = async () => {
    const result = await client.callTool({ name: "run_shell_command", arguments: { pane_id: pane, command: "true" } })
    if (result.isError === true) throw new Error(JSON.stringify(result.content))
  }
  await runTrue()
  const before = readFileSync(log, "utf8").split("\n").length
  for (let i = 0; i < 20; i++) await runTrue()
  const lines = readFileSync(log, "utf8").split("\n").slice(before - 1, -1)
  const trailer = lines.filter((line) => /(^| )run -t/u.test(line)).length
  console.log(
    `20 runs of \`true\` on a ready pane: ${lines.length} tmux invocations (${lines.length / 20} per run: ` +
      `${(lines.length - trailer) / 20} by the server, ${trailer / 20} by the trailer in the shell)`
  )
  if (process.env.LIBTMUX_BENCH_VERBOSE !== undefined) console.log(lines.slice(0, 6).join("\n"))
  await client.close()
} finally {
  world.dispose()
}
