/**
 * Lost answers under parallel load (not a test): one server, 12 panes, each running 60 kB commands
 * one after another, all panes at once, for two minutes. Every answer to a new command must be its
 * own status and output; any other answer (an error, a resume error, a wrong status or output) is
 * counted as lost and printed.
 * Usage: node bench/lost-answers.ts [seconds, default 120] [server entry, default dist/libtmux-mcp.js]
 */
import { Client } from "@modelcontextprotocol/sdk/client/index.js"
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js"
import type { CallToolResult } from "@modelcontextprotocol/sdk/types.js"
import { mkdtempSync, realpathSync, writeFileSync } from "node:fs"
import { tmpdir } from "node:os"
import { join, resolve } from "node:path"
import { runThenRemove } from "./world.ts"

const root = resolve(import.meta.dirname, "..")
const seconds = Number(process.argv[2] ?? 120)
const entry = resolve(process.argv[3] ?? join(root, "dist/libtmux-mcp.js"))
const dir = realpathSync(mkdtempSync(join(tmpdir(), "libtmux-mcp-lost-")))
const config = join(dir, "tmux.conf")
writeFileSync(config, "set -g history-limit 50000\nset -g default-shell /bin/bash\n")
for (const file of [".bashrc", ".profile"]) writeFileSync(join(dir, file), "")
const env = {
  PATH: process.env.PATH ?? "",
  HOME: dir,
  SHELL: "/bin/bash",
  TERM: "xterm-256color",
  TMUX_TMPDIR: dir,
  LIBTMUX_TMUX_CONFIG: config,
  LIBTMUX_TOOLSETS: "inspect,manage,execute"
}
const panes = 12
/** A command of about 60 kB: one long word whose length the command prints. */
const payload = "x".repeat(60_000)

const textOf = (result: CallToolResult): string => {
  const first = result.content[0]
  return first !== undefined && first.type === "text" ? first.text : ""
}

const main = async () => {
  const transport = new StdioClientTransport({ command: process.execPath, args: [entry], env, stderr: "ignore" })
  const client = new Client({ name: "lost-answers", version: "0" })
  await client.connect(transport)
  const call = async (name: string, args: Record<string, unknown>) =>
    (await client.callTool({ name, arguments: args }, undefined, { timeout: 300_000 })) as CallToolResult
  const ids: Array<string> = []
  for (let i = 0; i < panes; i++) {
    const created = await call("create_session", { session_name: `lost${i}`, width: 120, height: 40 })
    ids.push((created.structuredContent as { pane_id: string }).pane_id)
  }
  const until = Date.now() + seconds * 1000
  let answers = 0
  const lost: Array<string> = []
  await Promise.all(ids.map(async (pane, p) => {
    for (let n = 0; Date.now() < until; n++) {
      const marker = `m${p}-${n}`
      const result = await call("run_shell_command", {
        pane_id: pane,
        command: `printf '%s' ${payload} | wc -c; echo ${marker}`,
        timeout: 120
      })
      answers++
      const got = result.structuredContent as { exit_status?: number | null; output?: string } | undefined
      const ok = result.isError !== true && got?.exit_status === 0 && got.output?.trim() === `60000\n${marker}`
      if (!ok) {
        lost.push(`${pane} ${marker}: ${result.isError === true ? textOf(result) : JSON.stringify(got).slice(0, 300)}`)
      }
    }
  }))
  await client.close()
  console.log(`${answers} answers to new commands on ${panes} panes in ${seconds} s; lost: ${lost.length}`)
  for (const line of lost) console.log(`  ${line.slice(0, 400)}`)
}

await runThenRemove(main, dir, env)
