/**
 * Real requests and their responses, one or two per tool, for the tool pages. Each example runs
 * through the built server over the SDK's client against a scratch tmux server of its own (the
 * previous one is killed, so every example meets session $0 "work", window @0 "main" and panes %0
 * and %1 at a shell prompt), all in a temporary folder that is removed afterwards. A tool's example
 * is its first sample unless a scene below sets the stage first (types output for a tool that reads
 * it, a signal for one that waits for it) and says so in a caption; a second scene shows the empty
 * case where that is worth seeing. What changes from run to run (pids, times, paths, ttys, cursors,
 * run IDs, markers) becomes a placeholder.
 * `npm run docs:examples` writes the result to docs/examples.json for scripts/docs.ts;
 * test/e2e/examples.test.ts produces it again and compares.
 */
import type { CallToolResult } from "@modelcontextprotocol/sdk/types.js"
import { existsSync, writeFileSync } from "node:fs"
import { hostname } from "node:os"
import { join } from "node:path"
import { type ToolName, toolNames } from "../../src/manifest/index.ts"
import { call, connect, uiCapabilities } from "./mcp.ts"
import { until } from "./poll.ts"
import { samples } from "./samples.ts"
import { makeWorld, type TmuxWorld } from "./tmux.ts"

/** The committed examples. */
export const examplesPath = join(import.meta.dirname, "../../docs/examples.json")

/** A tool's example: the arguments of its call and the result, placeholders in place. */
export interface Example {
  /** What was done before the call, when anything was. */
  readonly caption?: string
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
  since: "<cursor>",
  run_id: "<run id>",
  // The pane view's digest covers the panes' titles, which are the machine's host name.
  digest: "<digest>"
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

/** What a scene can do before its call: call tools, type into a pane, run tmux. */
interface Stage {
  /** Calls a tool and returns its structured result (an error is a broken scene). */
  call(name: ToolName, args: Record<string, unknown>): Promise<Record<string, unknown>>
  /** Types a command line into a pane and Enter; with `settle`, waits until its shell prompts again. */
  type(pane: string, command: string, settle?: "settle"): Promise<void>
  /** Runs tmux on the scratch server. */
  tmux(...args: ReadonlyArray<string>): string
}

/** A tool's example other than its first sample: the stage set before the call, in the caption's words. */
interface Scene {
  readonly caption?: string
  readonly arguments: Record<string, unknown> | ((stage: Stage) => Promise<Record<string, unknown>>)
}

/** A command whose output says something a pattern can find without finding the command line too. */
const testSummary = "printf 'tests: %d passed, %d failed\\n' 41 2"
const typed = (pane: string) => `After \`${testSummary}\` was typed into ${pane} and had printed.`
const afterSummary = (pane: string, args: Record<string, unknown>): Scene => ({
  caption: typed(pane),
  arguments: async (stage) => {
    await stage.type(pane, testSummary, "settle")
    return args
  }
})

/** Tools whose first sample would find nothing, or whose empty case is worth a second example. */
const scenes: Partial<Record<ToolName, ReadonlyArray<Scene>>> = {
  get_server_info: [{
    caption:
      "After run_shell_command ran `sleep 30` in %1 with a timeout of 1 s: the run timed out and holds the pane.",
    arguments: async (stage) => {
      const { timed_out } = await stage.call("run_shell_command", { pane_id: "%1", command: "sleep 30", timeout: 1 })
      if (timed_out !== true) throw new Error("sleep 30 did not time out")
      return {}
    }
  }],
  capture_pane: [afterSummary("%0", { pane_id: "%0" })],
  capture_since: [{
    caption: `After a first call without a cursor gave a cursor, and \`${testSummary}\` was typed into %0 ` +
      "and had printed: the rows written since that cursor.",
    arguments: async (stage) => {
      const { cursor } = await stage.call("capture_since", { pane_id: "%0" })
      await stage.type("%0", testSummary, "settle")
      return { pane_id: "%0", cursor }
    }
  }],
  snapshot_pane: [afterSummary("%0", { pane_id: "%0" })],
  search_panes: [
    afterSummary("%1", { pattern: "2 failed" }),
    { caption: "Nothing matches: a fresh scratch server, nothing typed.", arguments: { pattern: "2 failed" } }
  ],
  find_pane_by_position: [{ arguments: { window_id: "@0", position: "bottom-left" } }],
  wait_for_text: [
    {
      caption: `After capture_since gave a cursor, and \`${testSummary}\` was typed into %0 and had printed: ` +
        "output after the cursor counts, even what came before the call.",
      arguments: async (stage) => {
        const { cursor } = await stage.call("capture_since", { pane_id: "%0" })
        await stage.type("%0", testSummary, "settle")
        return { pane_id: "%0", patterns: ["\\d+ failed"], regex: true, since: cursor, timeout: 10 }
      }
    },
    {
      caption: "Nothing new matches before the timeout: the pane stays at its prompt.",
      arguments: { pane_id: "%0", patterns: ["\\d+ failed"], regex: true, timeout: 0.5 }
    }
  ],
  wait_for_channel: [
    {
      caption: "After `sleep 0.5; tmux wait-for -S build` was typed into %1 (the wait may start before the " +
        "signal or after it: tmux keeps a signal that no one waited for yet).",
      arguments: async (stage) => {
        await stage.type("%1", "sleep 0.5; tmux wait-for -S build")
        return { channel: "build", timeout: 10 }
      }
    },
    { caption: "No one signals the channel before the timeout.", arguments: { channel: "build", timeout: 0.5 } }
  ],
  exit_copy_mode: [{
    caption: "After enter_copy_mode put %0 in copy mode.",
    arguments: async (stage) => {
      await stage.call("enter_copy_mode", { pane_id: "%0" })
      return { pane_id: "%0" }
    }
  }],
  get_tmux_variables: [{
    arguments: { pane_id: "%0", names: ["session_name", "window_name", "pane_width", "pane_current_path"] }
  }],
  show_hooks: [{
    caption: "After `tmux set-hook -g after-split-window 'select-layout tiled'` on the scratch server.",
    arguments: async (stage) => {
      stage.tmux("set-hook", "-g", "after-split-window", "select-layout tiled")
      return {}
    }
  }],
  clear_pane_scrollback: [{
    caption: "After `seq 30` was typed into %0 (12 rows high) and had printed.",
    arguments: async (stage) => {
      await stage.type("%0", "seq 30", "settle")
      return { pane_id: "%0" }
    }
  }]
}

/** Produces every tool's examples, in manifest order; the scratch folder is gone when it returns. */
export const produceExamples = async (
  names: ReadonlyArray<ToolName> = toolNames
): Promise<Record<string, ReadonlyArray<Example>>> => {
  const world = makeWorld("examples")
  try {
    const tmuxDir = whichDir("tmux")
    const prompt = join(world.dir, "prompt.sh")
    writeFileSync(prompt, "PS1='$ '\n")
    const connected = await connect(
      world,
      {
        LIBTMUX_TOOLSETS: "inspect,manage,execute,teardown",
        PATH: path(tmuxDir),
        HOME: world.dir,
        // In the world, so the example names it as a placeholder, not the test run's shared cache.
        XDG_CACHE_HOME: join(world.dir, "cache"),
        // The same prompt for every user (sh gives root its own): an interactive sh reads $ENV.
        ENV: prompt,
        // The pages show the server as a user starts it (show_environment lists what it passed on).
        LIBTMUX_TRANSPORT: undefined
      },
      [],
      uiCapabilities
    )
    const rules = replacements(world, tmuxDir)
    const replace = (text: string) =>
      rules.reduce(
        (out, [from, to]) => typeof from === "string" ? out.replaceAll(from, to) : out.replace(from, to),
        text
      )
    const stage: Stage = {
      call: async (name, args) => {
        const result = await call(connected, name, args)
        if (result.isError === true || result.structuredContent === undefined) {
          throw new Error(`a scene's ${name} call failed: ${JSON.stringify(result.content)}`)
        }
        return result.structuredContent
      },
      type: async (pane, command, settle) => {
        const rows = () => world.tmux(socket, "capture-pane", "-p", "-t", pane).trimEnd().split("\n")
        const before = rows().length
        await stage.call("send_keys", { pane_id: pane, keys: command, literal: true })
        if (settle !== undefined) {
          await until(
            `${command} in ${pane} to print and the prompt to come back`,
            rows,
            (now) => now.length > before + 1 && now.at(-1) === "$"
          )
          await prompted(world, pane)
        }
      },
      tmux: (...args) => world.tmux(socket, ...args)
    }
    const examples: Record<string, ReadonlyArray<Example>> = {}
    try {
      for (const name of names) {
        const sample = samples[name]?.[0]
        if (sample === undefined) throw new Error(`${name} has no sample in test/support/samples.ts`)
        const shownExamples: Array<Example> = []
        for (const scene of scenes[name] ?? [{ arguments: sample }]) {
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
          const args = typeof scene.arguments === "function" ? await scene.arguments(stage) : scene.arguments
          const result = await call(connected, name, args)
          shownExamples.push(
            normalize({
              ...(scene.caption === undefined ? {} : { caption: scene.caption }),
              arguments: args,
              ...shown(result)
            }, replace) as Example
          )
        }
        examples[name] = shownExamples
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
