/**
 * Where one call's milliseconds go (not a test): the built server started under `--cpu-prof`, N warm
 * calls of one tool over stdio, then the profile's self time per call, by function and by the
 * package it belongs to. Usage: node bench/profile-calls.ts [tool] [calls]; tool is list_sessions,
 * capture_pane or send_keys.
 */
import { Client } from "@modelcontextprotocol/sdk/client/index.js"
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js"
import { mkdirSync, readdirSync, readFileSync } from "node:fs"
import { dirname, join, resolve } from "node:path"
import { benchWorld, runThenRemove, ticks } from "./world.ts"

interface ProfileNode {
  readonly id: number
  readonly callFrame: { readonly functionName: string; readonly url: string; readonly lineNumber: number }
  readonly children?: ReadonlyArray<number>
}
interface Profile {
  readonly nodes: ReadonlyArray<ProfileNode>
  readonly samples: ReadonlyArray<number>
  readonly timeDeltas: ReadonlyArray<number>
}

const [tool = "list_sessions", count = "1000"] = process.argv.slice(2)
const calls = Number(count)
const world = benchWorld()
const root = resolve(import.meta.dirname, "..")

/** The module comment (`// path`) each line of a bundle falls under, per bundle file. */
const modulesOf = new Map<string, ReadonlyArray<string>>()
const moduleAt = (url: string, line: number): string | undefined => {
  if (!url.startsWith("file://") || !url.includes("/dist/")) return undefined
  let modules = modulesOf.get(url)
  if (modules === undefined) {
    let current = url
    modules = readFileSync(new URL(url), "utf8").split("\n").map((text) =>
      current = /^\/\/ ((?:node_modules|src)\/\S+)$/u.exec(text)?.[1] ?? current
    )
    modulesOf.set(url, modules)
  }
  return modules[line]
}

/** Where a frame's code lives: a package or our module (bundled or not), Node itself, or the engine. */
const placeOf = (url: string, name: string, line: number): string => {
  if (url === "") return name.startsWith("(") ? name : "(native)"
  const where = moduleAt(url, line) ?? url
  const pkg = /node_modules\/((?:@[^/]+\/)?[^/]+)\/(?:dist\/)?(.*)/u.exec(where)
  if (pkg !== null) return `${pkg[1]!} ${pkg[2]!}`
  return where.replace(/^.*?\/src\//u, "src/")
}

const report = (profile: Profile) => {
  const byId = new Map(profile.nodes.map((node) => [node.id, node]))
  const self = new Map<number, number>()
  profile.samples.forEach((id, i) => self.set(id, (self.get(id) ?? 0) + (profile.timeDeltas[i] ?? 0)))
  const byFunction = new Map<string, number>()
  const byPlace = new Map<string, number>()
  for (const [id, micros] of self) {
    const { functionName, lineNumber, url } = byId.get(id)!.callFrame
    const place = placeOf(url, functionName, lineNumber)
    const key = `${functionName || "(anonymous)"} ${place}`
    byFunction.set(key, (byFunction.get(key) ?? 0) + micros)
    const pkg = place.split(" ")[0]!
    byPlace.set(pkg, (byPlace.get(pkg) ?? 0) + micros)
  }
  const perCall = (micros: number) => `${(micros / 1000 / calls).toFixed(3)} ms`
  const busy = [...byPlace].filter(([place]) => place !== "(idle)").reduce((sum, [, micros]) => sum + micros, 0)
  const top = (table: Map<string, number>, n: number) =>
    [...table].sort((a, b) => b[1] - a[1]).slice(0, n).map(([key, micros]) => `  ${perCall(micros)}  ${key}`)
  console.log(`${tool}: self time per call over ${calls} calls, by place`)
  console.log(top(byPlace, 20).join("\n"))
  console.log(`  ${perCall(busy)}  busy in all (everything but idle)`)
  console.log("by function")
  console.log(top(byFunction, 60).join("\n"))
}

const main = async () => {
  mkdirSync(dirname(world.socket), { recursive: true, mode: 0o700 })
  await world.tmux("-f", world.env.LIBTMUX_TMUX_CONFIG, "new-session", "-d", "-s", "bench", "cat > /dev/null")
  const paneId = (await world.tmux("list-panes", "-t", "bench", "-F", "#{pane_id}")).trim()
  const profiles = join(world.env.HOME, "profiles")
  const transport = new StdioClientTransport({
    command: process.execPath,
    // PROFILE_NODE_FLAGS: more flags for the server's Node (--trace-gc, say); its stderr then shows.
    args: [
      "--cpu-prof",
      `--cpu-prof-dir=${profiles}`,
      ...(process.env.PROFILE_NODE_FLAGS?.split(" ").filter(Boolean) ?? []),
      join(root, "dist/libtmux-mcp.js")
    ],
    env: world.env,
    stderr: process.env.PROFILE_NODE_FLAGS === undefined ? "ignore" : "inherit"
  })
  const client = new Client({ name: "bench", version: "0" })
  await client.connect(transport)
  const args: Record<string, Record<string, unknown>> = {
    list_sessions: {},
    capture_pane: { pane_id: paneId },
    send_keys: { pane_id: paneId, keys: "x", literal: true, enter: false }
  }
  const before = ticks(transport.pid!)
  for (let i = 0; i < calls; i++) {
    const result = await client.callTool({ name: tool, arguments: args[tool] ?? {} })
    if (result.isError === true) throw new Error(`${tool} failed: ${JSON.stringify(result.content)}`)
  }
  const after = ticks(transport.pid!)
  // Clock ticks are hundredths of a second: ten times the ticks per call is milliseconds.
  const cpu = ((after[0] - before[0]) * 10) / calls
  await client.close()
  // The profile is written as the server exits on its stdin's end.
  for (let i = 0; i < 100 && readdirSafe(profiles).length === 0; i++) await new Promise((r) => setTimeout(r, 100))
  const file = readdirSafe(profiles)[0]
  if (file === undefined) throw new Error("the server wrote no profile")
  report(JSON.parse(readFileSync(join(profiles, file), "utf8")) as Profile)
  console.log(`server processor time (user + system, from /proc): ${cpu.toFixed(2)} ms per call`)
}

const readdirSafe = (dir: string): ReadonlyArray<string> => {
  try {
    return readdirSync(dir)
  } catch {
    return []
  }
}

await runThenRemove(main, world.env.HOME, world.env)
