/**
 * Issue 58's two edge reproductions, counted (not a test): LIBTMUX_BENCH_TRIES (default 200) of each,
 * four panes at once, against the built server (or LIBTMUX_BENCH_BIN).
 * - ends at the timeout: `sleep S; echo T<i>` with S from 1.6 to 2.4 s and `timeout: 2`. A first
 *   answer that is finished must carry T<i> from the run's start; one that timed out must end, after
 *   one resume, with it. Anything else (an empty output "since the previous answer") is lost.
 * - answered at the read's timeout: `read -t 2.5 -p 'ans? ' x; …`, answered `touch MARK<i>` from
 *   2.2 to 2.8 s after it was typed. The shell must never run it: a MARK file is a failure.
 * Prints the counts per case. `node bench/timeout-edge.ts`, after `npm run build`.
 */
import { existsSync } from "node:fs"
import { join } from "node:path"
import { shellQuote } from "../src/domain/quote.ts"
import { benchWorld, sleep } from "./world.ts"

const tries = Number(process.env.LIBTMUX_BENCH_TRIES ?? 200)
const lanes = 4
const world = benchWorld()

const main = async () => {
  const { client, call } = await world.start()
  const raw = (args: Record<string, unknown>) =>
    client.callTool({ name: "run_shell_command", arguments: args }, undefined, { timeout: 120_000 })
  const panes: Array<string> = []
  for (let lane = 0; lane < lanes; lane++) {
    const created = await call("create_session", { session_name: `edge${lane}`, start_directory: world.env.HOME })
    panes.push(created.pane_id as string)
  }
  const counts = { ended: { ok: 0, lost: 0 }, answered: { ok: 0, ranInShell: 0, other: 0 } }
  const edge = async (pane: string, i: number) => {
    const seconds = (1.6 + 0.8 * Math.random()).toFixed(2)
    const first = (await raw({ pane_id: pane, command: `sleep ${seconds}; echo T${i}`, timeout: 2 }))
      .structuredContent as
        | Record<string, any>
        | undefined
    let output = String(first?.output ?? "")
    if (first?.timed_out === true) {
      const rest = (await raw({ pane_id: pane, resume: first.run_id, timeout: 10 })).structuredContent as
        | Record<string, any>
        | undefined
      output += String(rest?.output ?? "")
    }
    if (output.includes(`T${i}`) && first?.output_from === undefined) counts.ended.ok++
    else {
      counts.ended.lost++
      console.log(`lost: ${JSON.stringify(first)}`)
    }
  }
  const answered = async (pane: string, i: number) => {
    const mark = join(world.env.HOME, `MARK${i}`)
    const typedAt = Date.now()
    const asked = (await raw({
      pane_id: pane,
      command: `read -t 2.5 -p 'ans? ' x; echo "got=[$x]"; sleep 0.3`,
      timeout: 10
    })).structuredContent as Record<string, any> | undefined
    if (asked?.blocked_by === undefined) {
      counts.answered.other++
      return
    }
    await sleep(Math.max(0, typedAt + 2200 + 600 * Math.random() - Date.now()))
    await raw({ pane_id: pane, resume: asked.run_id, answer: `touch ${shellQuote(mark)}`, timeout: 10 })
    // The shell has read its terminal once the next run answers.
    await raw({ pane_id: pane, command: "true", timeout: 20 })
    if (existsSync(mark)) counts.answered.ranInShell++
    else counts.answered.ok++
  }
  for (const job of [edge, answered]) {
    let next = 0
    await Promise.all(panes.map(async (pane) => {
      while (next < tries) await job(pane, next++)
    }))
  }
  console.log(JSON.stringify(counts))
  await client.close()
}

main().finally(() => world.dispose())
