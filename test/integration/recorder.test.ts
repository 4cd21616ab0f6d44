/**
 * The recorder's bounds and failures, on a real tmux with small limits: a pane that writes more than
 * a part holds fills part after part, each a recording of its own (its header says which part), and
 * only the newest parts are kept; a part that cannot be begun ends the recording once, its pipe closed.
 */
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import { execFile } from "node:child_process"
import { mkdirSync, readdirSync, readFileSync, renameSync, statSync, writeFileSync } from "node:fs"
import { join } from "node:path"
import { afterEach, assert, describe, it } from "vitest"
import * as RecorderLive from "../../src/layers/RecorderLive.ts"
import { TmuxCommandFailed } from "../../src/services/errors.ts"
import { Recorder } from "../../src/services/Recorder.ts"
import { ServerLog } from "../../src/services/ServerLog.ts"
import { SocketPin } from "../../src/services/SocketPin.ts"
import { TmuxUpkeep } from "../../src/services/TmuxUpkeep.ts"
import { until } from "../support/poll.ts"
import { makeWorld, type TmuxWorld } from "../support/tmux.ts"

let world: TmuxWorld | undefined
afterEach(() => world?.dispose())

/** The server's own runner over the world's socket: the commands in one tmux invocation. */
const upkeepOn = (socket: string) =>
  TmuxUpkeep.of({
    run: (commands) =>
      Effect.callback<string, TmuxCommandFailed>((resume) => {
        const argv = commands.flatMap((command, i) => i === 0 ? [...command] : [";", ...command])
        execFile("tmux", ["-S", socket, ...argv], (error, stdout, stderr) =>
          resume(
            error === null
              ? Effect.succeed(stdout)
              : Effect.fail(
                new TmuxCommandFailed({ command: commands[0]![0]!, exitCode: 1, stderr: stderr.trim() })
              )
          ))
      })
  })

const limits = { partBytes: 64 * 1024, partsKept: 2, queueBytes: 1024 * 1024 }
const mark = { tool: "send_keys", label: "send_keys 1.2.3#1", layout: false }

/**
 * A session whose program writes 600 KB each time a line is typed to it (no shell start-up to wait
 * for), a recording folder, and the recorder's services, its warnings kept.
 */
const setUp = (label: string) => {
  const made = makeWorld(label)
  world = made
  const socket = made.socketPath("libtmux-mcp")
  made.tmux(
    "libtmux-mcp",
    "new-session",
    "-d",
    "-s",
    "r",
    "-x",
    "80",
    "-y",
    "24",
    "while read line; do yes 0123456789abcdef | head -c 600000; echo all-written; done"
  )
  const pane = made.tmux("libtmux-mcp", "display", "-p", "-t", "r", "#{pane_id}").trim()
  const folder = join(made.dir, "recordings")
  mkdirSync(folder, { mode: 0o700 })
  const warnings: Array<string> = []
  const services = Layer.mergeAll(
    Layer.succeed(TmuxUpkeep, upkeepOn(socket)),
    Layer.succeed(SocketPin, SocketPin.of({ resolvedPath: socket } as SocketPin["Service"])),
    Layer.succeed(ServerLog, ServerLog.of({ line: (_level, text) => warnings.push(text), listen: () => undefined }))
  )
  const recorder = RecorderLive.layer(folder, limits).pipe(Layer.provide(services))
  const parts = () => readdirSync(folder).filter((name) => name.endsWith(".cast")).sort()
  return { world: made, pane, folder, recorder, warnings, parts }
}

describe("a pane that writes more than a part holds", () => {
  it("fills parts of at most the part size, each with its header, and keeps the newest", async () => {
    const { world, pane, folder, recorder, parts } = setUp("recorder")
    await Effect.runPromise(Effect.scoped(
      Effect.gen(function*() {
        yield* (yield* Recorder).before([pane], mark)
        world.tmux("libtmux-mcp", "send-keys", "-t", pane, "go", "Enter")
        yield* Effect.promise(() =>
          until("the sixth part", () =>
            parts().some((name) => /\.part([6-9]|\d\d)\.cast$/u.test(name)) &&
            readFileSync(join(folder, parts().at(-1)!), "utf8").includes("all-written"))
        )
      }).pipe(Effect.provide(recorder))
    ))
    const kept = parts()
    assert.lengthOf(kept, 2, kept.join(", "))
    const numbers = kept.map((name) => JSON.parse(readFileSync(join(folder, name), "utf8").split("\n")[0]!))
      .map((header) => header.libtmux_mcp.part as number).sort((a, b) => a - b)
    assert.strictEqual(numbers[1]! - numbers[0]!, 1)
    assert.isAtLeast(numbers[0]!, 5)
    for (const name of kept) {
      const lines = readFileSync(join(folder, name), "utf8").split("\n").filter((line) => line !== "")
      assert.strictEqual(JSON.parse(lines[0]!).version, 3)
      for (const line of lines.slice(1)) assert.lengthOf(JSON.parse(line), 3)
      // A part ends at the last event that fits.
      assert.isAtMost(statSync(join(folder, name)).size, limits.partBytes)
    }
    // The last part ends as the recorder stopped.
    const last = readFileSync(join(folder, kept.at(-1)!), "utf8")
    assert.include(last, "recording stopped: the server stopped")
  })
})

describe("a part that cannot be begun (a file took the folder's place)", () => {
  it("ends the recording once, closes its pipe, and refuses the pane's next call", async () => {
    const { world, pane, folder, recorder, warnings, parts } = setUp("recorder-gone")
    const pipeOf = () => world.tmux("libtmux-mcp", "display", "-p", "-t", pane, "#{pane_pipe}").trim()
    const refused = await Effect.runPromise(Effect.scoped(
      Effect.gen(function*() {
        const recording = yield* Recorder
        yield* recording.before([pane], mark)
        assert.lengthOf(parts(), 1)
        assert.strictEqual(pipeOf(), "1")
        renameSync(folder, `${folder}.moved`)
        writeFileSync(folder, "")
        world.tmux("libtmux-mcp", "send-keys", "-t", pane, "go", "Enter")
        yield* Effect.promise(() => until("the recording to end", () => pipeOf() === "0"))
        return yield* Effect.flip(recording.before([pane], mark))
      }).pipe(Effect.provide(recorder))
    ))
    assert.strictEqual(refused._tag, "RecordingUnavailable")
    assert.include(refused.message, "it is a file")
    assert.lengthOf(warnings.filter((line) => line.includes("writing its recording failed")), 1, warnings.join("\n"))
    // The option that named this instance's pipe is gone with it.
    assert.notInclude(world.tmux("libtmux-mcp", "show", "-p", "-t", pane), "@libtmux-mcp-recorder")
  })
})
