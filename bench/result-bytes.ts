/**
 * Result bytes (not a test): the structured result of five kinds of run_shell_command runs, as a
 * client reads it, beside the same result with every field at its usual value written out (as
 * results were before fields that say nothing were left out), and the model-visible tools/list.
 * Usage: node bench/result-bytes.ts
 */
import { benchWorld } from "./world.ts"

const world = benchWorld()
const usual = {
  timed_out: false,
  output_from: "start",
  output_start_lost: false,
  output_start_unknown: false,
  truncated_lines: 0,
  truncated_bytes: 0
}
try {
  const { client } = await world.start()
  const call = async (args: Record<string, unknown>) =>
    (await client.callTool({ name: "run_shell_command", arguments: args }, undefined, { timeout: 60_000 }))
      .structuredContent as Record<string, unknown>
  const created = (await client.callTool({ name: "create_session", arguments: {} })).structuredContent as {
    pane_id: string
  }
  const pane = created.pane_id
  const runs: ReadonlyArray<[string, Record<string, unknown>]> = [
    ["true", { command: "true" }],
    ["echo hello", { command: "echo hello" }],
    ["seq 1 20", { command: "seq 1 20" }],
    ["a failing ls", { command: "ls /nonexistent-folder" }],
    ["sleep 3, timeout 1", { command: "sleep 3", timeout: 1 }]
  ]
  let after = 0
  let before = 0
  for (const [label, args] of runs) {
    const result = await call({ pane_id: pane, ...args })
    // The old result had every usual field, and the timeout used whatever the call asked.
    const old: Record<string, unknown> = {
      ...usual,
      effective_timeout: (args.timeout as number | undefined) ?? 30,
      ...result
    }
    delete old.watch_command
    // A watch command (issue 40) is counted apart.
    const { output: _a, watch_command: _w, ...around } = result
    const { output: _b, ...oldAround } = old
    const now = Buffer.byteLength(JSON.stringify(around))
    const then = Buffer.byteLength(JSON.stringify(oldAround))
    after += now
    before += then
    console.log(
      `${label}: result ${Buffer.byteLength(JSON.stringify(result))} bytes (${
        Buffer.byteLength(JSON.stringify(old))
      } with the usual fields); around the output ${now} (${then})` +
        (result.watch_command === undefined ? "" : `, watch_command ${String(result.watch_command).length} of them`)
    )
    if (typeof result.run_id === "string") await call({ pane_id: pane, resume: result.run_id, timeout: 10 })
  }
  console.log(
    `around the output, mean: ${(after / runs.length).toFixed(0)} bytes (${(before / runs.length).toFixed(0)})`
  )
  const tools = (await client.listTools()).tools
  const visible = Buffer.byteLength(
    JSON.stringify(tools.map(({ name, description, inputSchema }) => ({ name, description, inputSchema })))
  )
  console.log(`tools/list, name + description + input schema: ${visible} bytes; whole: ${JSON.stringify(tools).length}`)
  await client.close()
} finally {
  world.dispose()
}
