/**
 * One real request and its response per tool, for the tool pages. Each tool's first sample runs
 * through the built server over the SDK's client against a scratch tmux server of its own (the
 * previous one is killed, so every tool meets session $0 "work", window @0 "main" and panes %0 and %1
 * at a shell prompt), all in a temporary folder that is removed afterwards. What changes from run to
 * run (pids, times, paths, ttys, cursors, run IDs, markers) becomes a placeholder.
 * `npm run docs:examples` writes the result to docs/examples.json for scripts/docs.ts;
 * test/e2e/examples.test.ts produces it again and compares.
 */
import type { CallToolResult } from "@modelcontextprotocol/sdk/types.js"
import { existsSync, writeFileSync } from "node:fs"
import { hostname } from "node:os"
import { join } from "node:path"
import { toolNames } from "../../src/manifest/index.ts"
import { call, connect } from "./mcp.ts"
import { until } from "./poll.ts"
import { samples } from "./samples.ts"
import { makeWorld, type TmuxWorld } from "./tmux.ts"

/** The committed examples. */
export const examplesPath = join(import.meta.dirname, "../../docs/examples.json")

/** A tool's example: the arguments of its call and the result, placeholders in place. */
export interface Example {
  readonly arguments: Readonly<Record<string, unknown>>
  /** The structured result; the text content carries the same JSON. */
  readonly result?: unknown
  /** The text of a result without structured content, or of an error. */
  readonly text?: string
  readonly isError?: true
}

const socket = "libtmux-mcp"
/** A PATH that holds no path of this machine's, with tmux's folder first. */
const path = (tmuxDir: string) => `${tmuxDir}:/usr/bin:/bin`

/** Fields whose values change from run to run, whatever their place, and their placeholders. */
const changing: Readonly<Record<string, string>> = {
  pid: "<pid>",
  pane_pid: "<pid>",
  elapsed_seconds: "<seconds>",
  session_created: "<time>",
  start_time: "<time>",
  // A pane's folder and command are read from its process, which a pane just (re)spawned may not
  // have yet (its command is still tmux's own fork for a moment).
  pane_current_path: "<path>",
  pane_current_command: "<command>",
  cursor: "<cursor>",
  run_id: "<run id>"
}

/** Text that changes from run to run inside strings: the scratch folder, ttys, the run protocol's markers. */
const replacements = (world: TmuxWorld, tmuxDir: string): ReadonlyArray<readonly [RegExp | string, string]> => [
  [world.dir, "<scratch>"],
  // A pane's default title.
  [new RegExp(`^${hostname().replaceAll(".", "\\.")}$`, "u"), "<hostname>"],
  [path(tmuxDir), "<PATH>"],
  [/\/dev\/pts\/\d+/gu, "/dev/pts/<n>"],
  [/@[a-z]\p{Hex_Digit}{6}\b/gu, "@<marker>"],
  [/\b\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d(?:\.\d+)?Z/gu, "<time>"]
]

/** The value with every changing field and text replaced, inside text that holds JSON too (a batch's results). */
const normalize = (value: unknown, replace: (text: string) => string, key?: string): unknown =>
  key !== undefined && changing[key] !== undefined && value !== null && value !== undefined
    ? changing[key]
    : typeof value === "string"
    ? value.startsWith("{") ? JSON.stringify(normalize(JSON.parse(value), replace)) : replace(value)
    : Array.isArray(value)
    ? value.map((item) => normalize(item, replace))
    : value !== null && typeof value === "object"
    ? Object.fromEntries(Object.entries(value).map(([field, item]) => [field, normalize(item, replace, field)]))
    : value

/** The part of a result a page shows. */
const shown = (result: CallToolResult): Omit<Example, "arguments"> => {
  const first = result.content[0]
  const text = first !== undefined && first.type === "text" ? first.text : JSON.stringify(result.content)
  const structured = result.structuredContent
  return {
    ...(structured !== undefined && text === JSON.stringify(structured) ? { result: structured } : { text }),
    ...(result.isError === true ? { isError: true as const } : {})
  }
}

/** A pane's shell has drawn its prompt. */
const prompted = (world: TmuxWorld, pane: string) =>
  until(`the shell prompt in ${pane}`, () => world.tmux(socket, "display-message", "-p", "-t", pane, "#{cursor_x}"), (
    x
  ) => x.trim() === "2")

/** Produces every tool's example, in manifest order; the scratch folder is gone when it returns. */
export const produceExamples = async (): Promise<Record<string, Example>> => {
  const world = makeWorld("examples")
  try {
    const tmuxDir = whichDir("tmux")
    const prompt = join(world.dir, "prompt.sh")
    writeFileSync(prompt, "PS1='$ '\n")
    const connected = await connect(world, {
      LIBTMUX_TOOLSETS: "inspect,manage,execute,teardown",
      PATH: path(tmuxDir),
      HOME: world.dir,
      // The same prompt for every user (sh gives root its own): an interactive sh reads $ENV.
      ENV: prompt
    })
    const rules = replacements(world, tmuxDir)
    const replace = (text: string) =>
      rules.reduce(
        (out, [from, to]) => typeof from === "string" ? out.replaceAll(from, to) : out.replace(from, to),
        text
      )
    const examples: Record<string, Example> = {}
    try {
      for (const name of toolNames) {
        const sample = samples[name]?.[0]
        if (sample === undefined) throw new Error(`${name} has no sample in test/support/samples.ts`)
        world.tryTmux(socket, "kill-server")
        await until(
          "the previous scratch tmux server to exit",
          () => world.tryTmux(socket, "list-sessions"),
          (out) => out === undefined
        )
        await call(connected, "create_session", { session_name: "work", window_name: "main" })
        await call(connected, "split_window", { pane_id: "%0" })
        await prompted(world, "%0")
        await prompted(world, "%1")
        const result = await call(connected, name, sample)
        examples[name] = normalize({ arguments: sample, ...shown(result) }, replace) as Example
      }
    } finally {
      await connected.close()
    }
    return examples
  } finally {
    world.dispose()
  }
}

/** The folder of a program on PATH. */
const whichDir = (program: string): string => {
  for (const dir of (process.env.PATH ?? "").split(":")) {
    if (dir !== "" && existsSync(join(dir, program))) return dir
  }
  throw new Error(`${program} is not on PATH`)
}
