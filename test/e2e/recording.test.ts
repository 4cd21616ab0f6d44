/**
 * Issue 63: recordings. With LIBTMUX_RECORD, each pane the agent's calls touch is recorded as
 * asciicast v3 from its first call until it goes: its output as tmux wrote it, its resizes, a
 * marker per call labelled as the call's audit records are numbered, a run's exit status, and the
 * `x` event when the pane goes. A secret typed as an answer is not in it. asciinema-player (its
 * own bundle, in a real browser) reads the files and shows the markers in order.
 */
import { chmodSync, mkdirSync, readdirSync, readFileSync, renameSync, rmSync, statSync, writeFileSync } from "node:fs"
import { createRequire } from "node:module"
import { join } from "node:path"
import { assert, describe, it } from "vitest"
import { shellQuote } from "../../src/domain/quote.ts"
import { errorMetaKey } from "../../src/services/errors.ts"
import { browserAvailable, launchBrowser } from "../support/appHost.ts"
import { harness } from "../support/harness.ts"
import { call, type Connected, structured, textOf } from "../support/mcp.ts"
import { holdsFor, running, until } from "../support/poll.ts"
import { assertBinRefused } from "../support/startupErrors.ts"
import type { TmuxWorld } from "../support/tmux.ts"

// In process, but for the test of two instances (two in-process servers share the test process's ID).
const h = harness("recording", { inProcess: true })
const bin = harness("recording")

/** A recording read back: its header and its events with their times (seconds from its start). */
interface Cast {
  readonly header: Record<string, any>
  readonly events: ReadonlyArray<readonly [number, string, string]>
}

const readCast = (path: string): Cast => {
  const [first, ...rest] = readFileSync(path, "utf8").split("\n").filter((line) => line !== "")
  let time = 0
  const events = rest.map((line) => {
    const [interval, code, data] = JSON.parse(line) as [number, string, string]
    time += interval
    return [time, code, data] as const
  })
  return { header: JSON.parse(first!), events }
}

const castsIn = (folder: string) =>
  readdirSync(folder).filter((name) => name.endsWith(".cast")).map((name) => join(folder, name))

const castOf = (folder: string, pane: string): string => {
  const found = castsIn(folder).filter((path) => readCast(path).header.libtmux_mcp?.pane === pane)
  assert.lengthOf(found, 1, `one recording of ${pane} in ${readdirSync(folder).join(", ")}`)
  return found[0]!
}

const markers = (cast: Cast) => cast.events.filter(([, code]) => code === "m").map(([, , label]) => label)
const output = (cast: Cast) => cast.events.filter(([, code]) => code === "o").map(([, , data]) => data).join("")

const require = createRequire(import.meta.url)
const playerScript = readFileSync(require.resolve("asciinema-player/dist/bundle/asciinema-player.min.js"), "utf8")
const playerStyle = readFileSync(require.resolve("asciinema-player/dist/bundle/asciinema-player.css"), "utf8")

/** The labels of the markers asciinema-player shows on its timeline for a recording, in order. */
const playerMarkers = async (cast: string): Promise<ReadonlyArray<string>> => {
  const browser = await launchBrowser()
  try {
    const page = await browser.newPage()
    const errors: Array<string> = []
    page.on("pageerror", (error) => errors.push(error.message))
    await page.setContent(
      `<!doctype html><html><head><style>${playerStyle}</style></head><body><div id="p"></div></body></html>`
    )
    await page.addScriptTag({ content: playerScript })
    await page.evaluate((data) => {
      ;(globalThis as any).AsciinemaPlayer.create({ data }, (globalThis as any).document.getElementById("p"), {
        preload: true
      })
    }, cast)
    await page.waitForSelector(".ap-marker-container", { state: "attached", timeout: 20_000 })
    const texts = await page.$$eval(
      ".ap-marker-container .ap-tooltip",
      (tips) => tips.map((tip) => tip.textContent ?? "")
    )
    assert.deepStrictEqual(errors, [])
    // Each reads `<time> - <label>`.
    return texts.map((text) => text.replace(/^[0-9:]+ - /u, ""))
  } finally {
    await browser.close()
  }
}

const serve = async (world: TmuxWorld, extra: Record<string, string> = {}, on = h) => {
  const folder = join(world.dir, "recordings")
  const audit = join(world.dir, "audit.jsonl")
  const c = await on.connect(world, {
    LIBTMUX_RECORD: folder,
    LIBTMUX_AUDIT_LOG: audit,
    LIBTMUX_TOOLSETS: "inspect,manage,execute,teardown",
    ...extra
  })
  return { c, folder, audit }
}

const session = async (c: Connected, world: TmuxWorld) =>
  structured(
    await call(c, "create_session", { session_name: "rec", width: 80, height: 24, start_directory: world.dir })
  ).pane_id as string

const ok = async (c: Connected, name: string, args: Record<string, unknown>) => {
  const result = await call(c, name, args, { timeout: 40_000 })
  assert.isUndefined(result.isError, `${name}: ${textOf(result)}`)
  return structured(result)
}

/** The audit's intent records by `<instance>#<call>`. */
const intents = (audit: string) =>
  new Map(
    readFileSync(audit, "utf8").trim().split("\n").map((line) => JSON.parse(line))
      .filter((record) => record.event === "tool_call_intent")
      .map((record) => [`${record.instance}#${record.call}`, record])
  )

/** Each call marker's tool and the audit record it names; labels that are not a call's are left out. */
const callsOf = (labels: ReadonlyArray<string>, audit: string) => {
  const records = intents(audit)
  return labels.flatMap((label) => {
    const match = /^([a-z_]+) (\S+#\d+)$/u.exec(label)
    if (match === null) return []
    const record = records.get(match[2]!)
    assert.isDefined(record, `the audit has the call of marker ${label}`)
    assert.strictEqual(record.tool, match[1], label)
    return [match[1]!]
  })
}

describe("a session of runs, an answered secret, a resize and a killed pane", () => {
  it("is recorded pane by pane, each call marked as the audit numbers it, the secret absent", async () => {
    const world = h.world()
    const { c, folder, audit } = await serve(world)
    const pane = await session(c, world)
    const first = await ok(c, "run_shell_command", { pane_id: pane, command: "echo hello-$((6*7))" })
    assert.strictEqual(first.exit_status, 0)
    const capabilities = await c.client.readResource({ uri: "tmux://capabilities" })
    const recording = JSON.parse((capabilities.contents[0] as { text: string }).text).recording
    assert.deepInclude(recording, { folder, panes: [pane], part_bytes: 64 * 1024 * 1024, parts_kept: 8 })
    const failed = await ok(c, "run_shell_command", { pane_id: pane, command: "(exit 3)" })
    assert.strictEqual(failed.exit_status, 3)
    const secret = "s3cr3t-Hunter2-xyz"
    const script = join(world.dir, "login.sh")
    writeFileSync(script, "read -s -p 'token? ' t\necho\necho \"token length ${#t}\"\n")
    // CI's temporary folder has a space in it.
    const asked = await ok(c, "run_shell_command", {
      pane_id: pane,
      command: `bash ${shellQuote(script)}`,
      timeout: 60
    })
    assert.deepInclude(asked.blocked_by, { kind: "secret" }, JSON.stringify(asked))
    const answered = await ok(c, "run_shell_command", { pane_id: pane, resume: asked.run_id, answer: secret })
    assert.strictEqual(answered.exit_status, 0)
    await ok(c, "resize_window", {
      window_id: structured(await call(c, "get_pane_info", { pane_id: pane })).window_id,
      width: 100,
      height: 30
    })
    await ok(c, "run_shell_command", { pane_id: pane, command: "echo after-resize" })
    const other = (await ok(c, "split_window", { pane_id: pane })).pane_id as string
    await ok(c, "run_shell_command", { pane_id: other, command: "echo in-the-other-pane" })
    await ok(c, "kill_pane", { pane_id: other })

    // The killed pane's recording ends with its marker and one `x` event.
    await until("the killed pane's recording to end", () => {
      const cast = readCast(castOf(folder, other))
      return cast.events.at(-1)?.[1] === "x" ? cast : undefined
    })
    await c.close()
    const kept = readCast(castOf(folder, pane))
    const gone = readCast(castOf(folder, other))

    // Files: owner-only folder, 0600 files, nothing else left (the FIFOs are gone).
    assert.strictEqual(statSync(folder).mode & 0o777, 0o700)
    for (const path of castsIn(folder)) assert.strictEqual(statSync(path).mode & 0o777, 0o600)
    assert.deepStrictEqual(readdirSync(folder).filter((name) => !name.endsWith(".cast")), [])

    for (const cast of [kept, gone]) {
      assert.strictEqual(cast.header.version, 3)
      assert.strictEqual(cast.header.libtmux_mcp.socket, world.socketPath("libtmux-mcp"))
      assert.notInclude(JSON.stringify(cast), secret)
      assert.isFalse(cast.events.some(([, code]) => code === "i"))
    }
    assert.deepInclude(kept.header.term, { cols: 80, rows: 24 })
    assert.strictEqual(kept.header.libtmux_mcp.pane, pane)

    // The calls on each pane, in order, each found in the audit by its instance and call.
    assert.deepStrictEqual(callsOf(markers(kept), audit), [
      "create_session",
      "run_shell_command",
      "run_shell_command",
      "run_shell_command",
      "run_shell_command",
      "get_pane_info",
      "run_shell_command",
      "split_window"
    ])
    assert.deepStrictEqual(callsOf(markers(gone), audit), ["split_window", "run_shell_command", "kill_pane"])
    assert.includeMembers(
      markers(kept).filter((label) => label.startsWith("exit ")).map((label) => label.split(" ")[1]),
      [
        "0",
        "3"
      ]
    )
    assert.strictEqual(markers(kept).at(-1), "recording stopped: the server stopped")

    // What the panes showed: the run's output, the prompt, and the resize before the output after it.
    const shown = output(kept)
    assert.include(shown, "hello-42")
    assert.include(shown, "token length 18")
    assert.include(shown, "token? ")
    const resize = kept.events.findIndex(([, code, data]) => code === "r" && data === "100x30")
    const after = kept.events.findIndex(([, code, data]) => code === "o" && data.includes("after-resize"))
    assert.isAbove(resize, -1, "the resize is recorded")
    assert.isBelow(resize, after, "before the output that follows it")
    assert.include(output(gone), "in-the-other-pane")
    assert.deepStrictEqual(gone.events.filter(([, code]) => code === "x").length, 1)
    assert.strictEqual(gone.events.at(-1)?.[1], "x")
    // asciinema-player, in a real browser, reads both files and shows each marker on its timeline.
    if (browserAvailable()) {
      for (const cast of [castOf(folder, pane), castOf(folder, other)]) {
        assert.deepStrictEqual(await playerMarkers(readFileSync(cast, "utf8")), markers(readCast(cast)))
      }
    }
    // Times never go back.
    for (const cast of [kept, gone]) {
      for (let i = 1; i < cast.events.length; i++) assert.isAtLeast(cast.events[i]![0], cast.events[i - 1]![0])
    }
  })
})

describe("recording off", () => {
  it("leaves no file and no pipe on the panes it ran in", async () => {
    const world = h.world()
    const c = await h.connect(world, { LIBTMUX_TOOLSETS: "inspect,execute" })
    const pane = await session(c, world)
    await ok(c, "run_shell_command", { pane_id: pane, command: "echo not-recorded" })
    assert.strictEqual(world.tmux("libtmux-mcp", "display", "-p", "-t", pane, "#{pane_pipe}").trim(), "0")
    const capabilities = await c.client.readResource({ uri: "tmux://capabilities" })
    const document = JSON.parse((capabilities.contents[0] as { text: string }).text)
    assert.isNull(document.recording)
    const found = readdirSync(world.dir, { recursive: true }).map(String).filter((name) =>
      name.endsWith(".cast") || name.endsWith(".fifo")
    )
    assert.deepStrictEqual(found, [])
  })
})

describe("a folder that cannot take the recordings", () => {
  it("stops startup: a file, a folder others can enter, a relative path", async () => {
    const world = h.world()
    const file = join(world.dir, "not-a-folder")
    writeFileSync(file, "")
    await assertBinRefused(world, { LIBTMUX_RECORD: file }, [`LIBTMUX_RECORD ${file} cannot be used`, "a file"])
    const open = join(world.dir, "open")
    mkdirSync(open, { mode: 0o755 })
    chmodSync(open, 0o755)
    await assertBinRefused(world, { LIBTMUX_RECORD: open }, ["others can reach it (mode 0755)", "chmod 700"])
    await assertBinRefused(world, { LIBTMUX_RECORD: "recordings" }, ["give an absolute folder path"])
  })

  it("refuses a call on a pane it cannot record, which then did nothing", async () => {
    const world = h.world()
    const { c, folder } = await serve(world)
    await session(c, world)
    // A pane this server has not touched yet, then the folder replaced by a file.
    const pane = world.tmux("libtmux-mcp", "split-window", "-d", "-P", "-F", "#{pane_id}", "-t", "rec").trim()
    renameSync(folder, `${folder}.moved`)
    writeFileSync(folder, "")
    const refused = await call(c, "send_keys", { pane_id: pane, keys: "echo typed-anyway" })
    assert.isTrue(refused.isError)
    assert.strictEqual(refused._meta?.[errorMetaKey], "RecordingUnavailable")
    assert.include(textOf(refused), `send_keys did nothing: recording is on (LIBTMUX_RECORD) and pane ${pane}`)
    assert.include(textOf(refused), "a file")
    await holdsFor(
      300,
      "nothing is typed into the pane",
      () => !world.tmux("libtmux-mcp", "capture-pane", "-p", "-t", pane).includes("typed-anyway")
    )
    assert.strictEqual(world.tmux("libtmux-mcp", "display", "-p", "-t", pane, "#{pane_pipe}").trim(), "0")
    // Once the folder is back, the same call is recorded and acts.
    rmSync(folder)
    renameSync(`${folder}.moved`, folder)
    await ok(c, "send_keys", { pane_id: pane, keys: "echo typed-now" })
    await until("the recording shows it", () => output(readCast(castOf(folder, pane))).includes("typed-now"))
  })

  it("refuses a call on a pane whose pipe someone else holds (tmux gives a pane one)", async () => {
    const world = h.world()
    const { c } = await serve(world)
    await session(c, world)
    const pane = world.tmux("libtmux-mcp", "split-window", "-d", "-P", "-F", "#{pane_id}", "-t", "rec").trim()
    world.tmux("libtmux-mcp", "pipe-pane", "-t", pane, "cat >/dev/null")
    const refused = await call(c, "capture_pane", { pane_id: pane })
    assert.strictEqual(refused._meta?.[errorMetaKey], "RecordingUnavailable")
    assert.include(textOf(refused), "it has a pipe already (pipe-pane)")
    // That pipe is left as it was.
    assert.strictEqual(world.tmux("libtmux-mcp", "display", "-p", "-t", pane, "#{pane_pipe}").trim(), "1")
  })
})

describe("a folder whose name tmux and the shell would read, and wide characters", () => {
  it("holds the recordings (#, %, quotes reach the pipe as they are), each CJK and emoji whole", async () => {
    const world = h.world()
    const folder = join(world.dir, "rec #{pane_id} %H 'q' $HOME")
    const c = await h.connect(world, { LIBTMUX_RECORD: folder, LIBTMUX_TOOLSETS: "inspect,execute" })
    const pane = await session(c, world)
    await ok(c, "run_shell_command", { pane_id: pane, command: "echo odd-folder" })
    await until("the recording shows it", () => output(readCast(castOf(folder, pane))).includes("odd-folder"))
    // 36 KB of CJK and emoji in one go: every character whole, however tmux and the pipe cut the bytes.
    await ok(c, "run_shell_command", { pane_id: pane, command: "yes '日本語😀' | head -n 3000 | tr -d '\\n'; echo" })
    const shown = await until("the recording shows all of it", () => {
      const text = output(readCast(castOf(folder, pane)))
      return text.split("😀").length - 1 >= 3000 ? text : undefined
    })
    assert.notInclude(shown, "\uFFFD")
    assert.include(shown, "日本語😀".repeat(50))
    assert.deepStrictEqual(readdirSync(folder).filter((name) => !name.endsWith(".cast")), [])
  })
})

describe("a killed tmux server", () => {
  it("ends every recording with the exit event; the next server's panes get recordings of their own", async () => {
    const world = h.world()
    const { c, folder } = await serve(world)
    const pane = await session(c, world)
    const other = (await ok(c, "split_window", { pane_id: pane })).pane_id as string
    world.tmux("libtmux-mcp", "kill-server")
    for (const id of [pane, other]) {
      await until(`${id}'s recording to end`, () => readCast(castOf(folder, id)).events.at(-1)?.[1] === "x")
    }
    // The next server numbers its panes from %0 again: a new file, not the old one.
    const again = await session(c, world)
    await ok(c, "run_shell_command", { pane_id: again, command: "echo second-server" })
    const recordings = () => castsIn(folder).map(readCast).filter((cast) => cast.header.libtmux_mcp.pane === again)
    assert.lengthOf(recordings(), 2)
    await until(
      "the new recording to show the run",
      () => recordings().some((cast) => output(cast).includes("second-server"))
    )
  })
})

describe("a pane another instance records", () => {
  it("is refused while that instance lives, and taken over once it was killed", async () => {
    const world = bin.world()
    const { c: first, folder } = await serve(world, {}, bin)
    const pane = await session(first, world)
    const { c: second } = await serve(world, {}, bin)
    const refused = await call(second, "capture_pane", { pane_id: pane })
    assert.strictEqual(refused._meta?.[errorMetaKey], "RecordingUnavailable")
    const owner = /another libtmux-mcp instance \((\d+\.\d+\.\d*)\) records it/u.exec(textOf(refused))?.[1]
    assert.isDefined(owner, textOf(refused))
    // Killed: it cannot close its pipe, which stays on the pane, idle, naming the dead instance.
    const pid = first.pid!()!
    process.kill(pid, "SIGKILL")
    await until("the first server to be gone", () => !running(pid) || undefined)
    assert.strictEqual(world.tmux("libtmux-mcp", "display", "-p", "-t", pane, "#{pane_pipe}").trim(), "1")
    await ok(second, "run_shell_command", { pane_id: pane, command: "echo taken-over" })
    await until(
      "the second server's recording to show it",
      () =>
        castsIn(folder).map(readCast).some((cast) =>
          cast.header.libtmux_mcp.instance !== owner && output(cast).includes("taken-over")
        )
    )
  })
})
