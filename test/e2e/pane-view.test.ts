/**
 * The pane view (an MCP App) in a real browser: chromium with the extension's host side
 * (AppBridge) as the host page, the view's page in a sandboxed iframe, and the server behind it
 * over stdio, called through the SDK's client as a host does. What the view shows is compared with
 * what tmux shows, cell by cell, and once as a picture (docs/images/pane-view.png).
 */
import type { CallToolResult, Tool } from "@modelcontextprotocol/sdk/types.js"
import { existsSync, readFileSync, writeFileSync } from "node:fs"
import { createServer } from "node:http"
import type { AddressInfo } from "node:net"
import type { Browser, Frame, Page } from "playwright-core"
import { afterAll, assert, beforeAll, describe, it } from "vitest"

// The page's globals, for the functions evaluated in the browser (the project's lib has no DOM).
// oxlint-disable-next-line no-explicit-any -- typed by the browser, not here
declare const window: any, document: any, Image: any, OffscreenCanvas: any
import { browserAvailable, hostBundle, hostPage, launchBrowser } from "../support/appHost.ts"
import { harness } from "../support/harness.ts"
import { connectInProcess } from "../support/inProcess.ts"
import { call, connect, type Connected, structured, uiCapabilities } from "../support/mcp.ts"
import { holdsFor, until } from "../support/poll.ts"
import { shellEnv } from "../support/shells.ts"
import type { TmuxWorld } from "../support/tmux.ts"

const h = harness("pane-view")
const socket = "libtmux-mcp"
const baseline = new URL("../../docs/images/pane-view.png", import.meta.url)

let browser: Browser | undefined
let bundle = ""
beforeAll(async () => {
  if (!browserAvailable()) return
  bundle = await hostBundle()
  browser = await launchBrowser()
}, 60_000)
afterAll(async () => {
  await browser?.close()
})

/** A tool call the view made, and how many bytes its result took. */
interface ViewCall {
  readonly name: string
  readonly arguments: Record<string, unknown>
  readonly bytes: number
  readonly result: CallToolResult
}

/** A server for a client that shows apps, a host page in the browser, and the view's calls as they come. */
const open = async (world: TmuxWorld) => {
  const server = h.track(await connectInProcess(world, shellEnv(world, "/bin/bash"), [], {}, uiCapabilities))
  const page = await browser!.newPage({ viewport: { width: 800, height: 460 } })
  h.defer(() => void page.close())
  const requests: Array<string> = []
  // What reached the network: a request the content policy blocks fails before it leaves.
  page.on("requestfinished", (request) => requests.push(request.url()))
  const calls: Array<ViewCall> = []
  // A test can hold the view's calls at the host (`hold`), as a slow host does, and let them go.
  const held: { gate?: Promise<void> | undefined; open?: () => void; waiting: number } = { waiting: 0 }
  const hold = () => {
    held.gate = new Promise<void>((resolve) => (held.open = resolve))
    return () => {
      held.gate = undefined
      held.open?.()
    }
  }
  await page.exposeFunction("hostCallTool", async (params: { name: string; arguments: Record<string, unknown> }) => {
    if (held.gate !== undefined) {
      held.waiting++
      await held.gate
    }
    const result = await call(server, params.name, params.arguments)
    calls.push({ ...params, bytes: JSON.stringify(result).length, result })
    return result
  })
  await page.setContent(hostPage(bundle))
  const [view] = (await server.client.readResource({ uri: "ui://libtmux-mcp/pane" })).contents
  assert.strictEqual(view?.mimeType, "text/html;profile=mcp-app")
  const html = view !== undefined && "text" in view ? view.text : ""
  await page.evaluate((text) => (window as unknown as { startView(html: string): Promise<void> }).startView(text), html)
  const frame = page.frames().find((candidate) => candidate !== page.mainFrame())!
  return { server, page, frame, requests, calls, hold, held }
}

/** Tells the view a tool ran on the pane, as a host does: the call's arguments, then its result. */
const showToolRun = (page: Page, args: Record<string, unknown>, result?: CallToolResult) =>
  page.evaluate(async ([input, output]) => {
    const bridge = (window as unknown as { bridge: { sendToolInput(p: unknown): Promise<void> } }).bridge
    await bridge.sendToolInput({ arguments: input })
    if (output !== undefined) {
      await (bridge as unknown as { sendToolResult(p: unknown): Promise<void> }).sendToolResult(output)
    }
  }, [args, result] as const)

const stateText = (frame: Frame) => frame.locator("#state").textContent()
const runText = (frame: Frame) => frame.locator("#run").textContent()

/** The view's rows as text, as the page shows them. */
const viewRows = (frame: Frame) =>
  frame.evaluate(() => [...document.querySelectorAll("#screen > div")].map((row) => row.textContent ?? ""))

/** A session whose pane shows coloured text, its cursor left at row 3, column 6 (a shell waiting in `read`). */
const colouredPane = async (server: Connected, world: TmuxWorld) => {
  const created = structured(await call(server, "create_session", { session_name: "view", width: 60, height: 10 }))
  const pane = created.pane_id as string
  world.tmux(socket, "select-pane", "-t", pane, "-T", "demo")
  await until(
    "the shell's prompt",
    () => world.tmux(socket, "display-message", "-p", "-t", pane, "#{cursor_x}").trim(),
    (x) => x !== "0"
  )
  // No run of run_shell_command, so the picture holds no run ID; wide characters are the unit tests'.
  const script = "clear; printf '\\033[31mred\\033[0m plain \\033[1;44mblue\\033[0m caf\\303\\251 " +
    "\\033[38;5;208morange\\033[0m\\n\\033[7mreverse\\033[0m\\n\\033[4;7H'; read -r x"
  await call(server, "send_keys", { pane_id: pane, keys: script, literal: true })
  await until(
    "the pane to print and wait in read",
    () => world.tmux(socket, "display-message", "-p", "-t", pane, "#{cursor_y},#{cursor_x}").trim(),
    (at) => at === "3,6"
  )
  return { created, pane }
}

/** A session of two panes, the view showing the first and its picker listing both; the second pane's ID. */
const twoPanesShown = async (server: Connected, page: Page, frame: Frame, name: string) => {
  const created = structured(await call(server, "create_session", { session_name: name }))
  const second = structured(await call(server, "split_window", { pane_id: created.pane_id })).pane_id as string
  await showToolRun(page, { pane_id: created.pane_id })
  await until("the picker to list both panes", () => frame.locator("#picker option").count(), (count) => count === 2)
  return second
}

/**
 * Once the view shows the pane picked in it, two more polls of that pane: the index of `calls` they
 * start after.
 */
const pollsOfPicked = async (frame: Frame, calls: ReadonlyArray<ViewCall>, picked: string): Promise<number> => {
  await until("the view to show the picked pane", () => frame.locator("#pane").textContent(), (id) => id === picked)
  const from = calls.length
  await until(
    "two more polls of the picked pane",
    () => calls.slice(from).filter((made) => made.arguments.pane_id === picked).length,
    (count) => count >= 2
  )
  return from
}

/** Compares two PNG screenshots in the browser: the share of pixels that differ visibly. */
const differingShare = async (page: Page, a: Buffer, b: Buffer): Promise<number> =>
  page.evaluate(async ([left, right]) => {
    const pixels = async (base64: string) => {
      const image = new Image()
      image.src = `data:image/png;base64,${base64}`
      await image.decode()
      const canvas = new OffscreenCanvas(image.width, image.height)
      const context = canvas.getContext("2d")!
      context.drawImage(image, 0, 0)
      return context.getImageData(0, 0, image.width, image.height)
    }
    const [one, two] = [await pixels(left), await pixels(right)]
    if (one.width !== two.width || one.height !== two.height) return 1
    let differing = 0
    for (let at = 0; at < one.data.length; at += 4) {
      const delta = Math.max(
        Math.abs(one.data[at]! - two.data[at]!),
        Math.abs(one.data[at + 1]! - two.data[at + 1]!),
        Math.abs(one.data[at + 2]! - two.data[at + 2]!)
      )
      if (delta > 48) differing++
    }
    return differing / (one.width * one.height)
  }, [a.toString("base64"), b.toString("base64")] as const)

describe.skipIf(!browserAvailable())("the pane view in a browser host", () => {
  it("is listed to a client that shows apps, its poll hidden from the model and absent for others", async () => {
    const world = h.world()
    const plain = await h.connect(world, shellEnv(world, "/bin/bash"))
    const apps = h.track(await connect(world, shellEnv(world, "/bin/bash"), [], uiCapabilities))
    const appTools = (await apps.client.listTools()).tools
    const view = appTools.find((tool) => tool.name === "view_pane")
    assert.deepStrictEqual(view?._meta?.ui, { visibility: ["app"] })
    assert.strictEqual(view?._meta?.["ui/resourceUri"], undefined)
    for (const name of ["run_shell_command", "capture_pane", "create_session"]) {
      const tool = appTools.find((candidate) => candidate.name === name)
      assert.strictEqual(
        (tool?._meta?.ui as { resourceUri?: string } | undefined)?.resourceUri,
        "ui://libtmux-mcp/pane",
        name
      )
      assert.strictEqual(tool?._meta?.["ui/resourceUri"], "ui://libtmux-mcp/pane", name)
    }
    // Every other tool is the model's alone: a host that keeps to the extension refuses the page's calls of it.
    const sendKeys = appTools.find((candidate) => candidate.name === "send_keys")
    assert.deepStrictEqual(sendKeys?._meta?.ui, { visibility: ["model"] })
    // What the host gives its model: every tool but those only the app may see.
    const modelVisible = (tools: ReadonlyArray<Tool>) =>
      tools.filter((tool) => {
        const visibility = (tool._meta?.ui as { visibility?: ReadonlyArray<string> } | undefined)?.visibility
        return visibility === undefined || visibility.includes("model")
      }).map((tool) => tool.name)
    assert.notInclude(modelVisible(appTools), "view_pane")
    assert.lengthOf(modelVisible(appTools), 47)
    const plainTools = (await plain.client.listTools()).tools
    assert.deepStrictEqual(plainTools.map((tool) => tool.name), modelVisible(appTools))
    assert.isTrue(
      plainTools.every((tool) => tool._meta?.ui === undefined && tool._meta?.["ui/resourceUri"] === undefined)
    )
    const resources = (await plain.client.listResources()).resources.map((resource) => resource.uri)
    assert.deepStrictEqual(resources, ["tmux://capabilities"])
    const refused = await plain.client.callTool({ name: "view_pane", arguments: { pane_id: "%0" } }).then(
      () => "answered",
      (error: Error) => error.message
    )
    assert.match(refused, /view_pane is the pane view's own tool.*io\.modelcontextprotocol\/ui/u)
  })

  it("shows the pane's cells, colours and cursor as tmux has them, and looks as it did", async () => {
    const world = h.world()
    const { server, page, frame, calls } = await open(world)
    const { created, pane } = await colouredPane(server, world)
    await showToolRun(page, { session_name: "view", width: 60, height: 10 }, {
      content: [{ type: "text", text: JSON.stringify(created) }],
      structuredContent: created
    })
    await until("the view to show the pane", () => viewRows(frame), (rows) => (rows[0] ?? "").startsWith("red"))
    const tmuxRows = world.tmux(socket, "capture-pane", "-p", "-t", pane).split("\n").slice(0, 10)
    const shown = await viewRows(frame)
    assert.deepStrictEqual(shown.map((row) => row.trimEnd()), tmuxRows.map((row) => row.trimEnd()))
    const styleOf = (text: string) =>
      frame.evaluate(
        (wanted) =>
          [...document.querySelectorAll("#screen span")].find((span) => span.textContent === wanted)?.getAttribute(
            "data-style"
          ),
        text
      )
    assert.strictEqual(await styleOf("red"), "f1")
    assert.strictEqual(await styleOf("blue"), "b4 B")
    assert.strictEqual(await styleOf("orange"), "f208")
    assert.strictEqual(await styleOf("reverse"), "R")
    const cursor = await frame.evaluate(() => {
      const span = document.querySelector("#screen .cursor")!
      const row = span.parentElement!
      let before = ""
      for (const sibling of row.children) {
        if (sibling === span) break
        before += sibling.textContent
      }
      return { row: row.getAttribute("data-row"), before: before.length, hidden: span.classList.contains("hidden") }
    })
    assert.deepStrictEqual(cursor, { row: "3", before: 6, hidden: false })
    assert.strictEqual(await frame.locator("#pane").textContent(), pane)
    assert.strictEqual(await frame.locator("#size").textContent(), "60x10")
    assert.strictEqual(await frame.locator("#title").textContent(), "\"demo\"")
    assert.isAbove(calls.length, 0)
    // One picture of the whole host page, against the committed one (LIBTMUX_UPDATE_SCREENSHOT=1 writes it).
    const picture = await page.locator("#view").screenshot()
    if (process.env.LIBTMUX_UPDATE_SCREENSHOT === "1" || (!existsSync(baseline) && process.env.CI !== "true")) {
      writeFileSync(baseline, picture)
    }
    const share = await differingShare(page, readFileSync(baseline), picture)
    assert.isBelow(share, 0.01, `the view differs from docs/images/pane-view.png in ${(share * 100).toFixed(2)}%`)
    await call(server, "send_keys", { pane_id: pane, keys: "Enter" })
  })

  it("follows a run from working to ended, shows one blocked, and says when the pane is gone", async () => {
    const world = h.world()
    const { server, page, frame } = await open(world)
    const created = structured(await call(server, "create_session", { session_name: "runs" }))
    const pane = created.pane_id as string
    await call(server, "run_shell_command", { pane_id: pane, command: "true" })
    const command = "sleep 2; echo finished"
    const running = call(server, "run_shell_command", { pane_id: pane, command, timeout: 20 })
    await showToolRun(page, { pane_id: pane, command })
    await until("the view to show the run working", () => stateText(frame), (text) => text === "working")
    assert.match((await runText(frame)) ?? "", /^run \S+: sleep 2; echo finished \(working\)$/u)
    const ended = structured(await running)
    assert.strictEqual(ended.exit_status, 0)
    await until("the view to show the run ended", () => stateText(frame), (text) => text === "ended")
    assert.match((await runText(frame)) ?? "", /\(ended, exit status 0\)$/u)
    // A program waiting for the keyboard: the view says what run_shell_command says of it.
    const asked = structured(
      await call(server, "run_shell_command", { pane_id: pane, command: "read -r -p 'name? ' x", timeout: 20 })
    )
    const blocked = asked.blocked_by as { kind: string; program: string }
    await until("the view to show the run blocked", () => stateText(frame), (text) => text === "blocked")
    assert.match((await runText(frame)) ?? "", new RegExp(`\\(blocked: ${blocked.kind}, ${blocked.program}\\)$`, "u"))
    world.tmux(socket, "kill-pane", "-t", pane)
    await until("the view to show the pane gone", () => stateText(frame), (text) => text === "pane gone")
  })

  it("polls about once a second, an unchanged screen costing one small answer, and stops on teardown", async () => {
    const world = h.world()
    const { server, page, frame, calls } = await open(world)
    const { pane } = await colouredPane(server, world)
    await showToolRun(page, { pane_id: pane })
    await until("the view to show the pane", () => viewRows(frame), (rows) => (rows[0] ?? "").startsWith("red"))
    const from = calls.length
    await until("four more polls", () => calls.length, (count) => count >= from + 4)
    const idle = calls.slice(from, from + 4)
    for (const made of idle) {
      assert.strictEqual(made.name, "view_pane")
      assert.strictEqual(made.result.structuredContent?.unchanged, true)
      assert.isAtMost(made.bytes, 200, JSON.stringify(made.result))
    }
    await page.evaluate(() =>
      (window as unknown as { bridge: { teardownResource(p: object): Promise<unknown> } }).bridge.teardownResource({})
    )
    const after = calls.length
    // A poll already asked may still land; none is asked after it.
    await holdsFor(2_500, "no poll after the teardown", () => calls.length <= after + 1)
    await call(server, "send_keys", { pane_id: pane, keys: "Enter" })
  })

  it("shows a run that ended after its call returned, before anyone collected it, as that run", async () => {
    const world = h.world()
    const { server, page, frame } = await open(world)
    const created = structured(await call(server, "create_session", { session_name: "late" }))
    const pane = created.pane_id as string
    const returned = structured(
      await call(server, "run_shell_command", { pane_id: pane, command: "sleep 3; echo late", timeout: 1 })
    )
    const runId = returned.run_id as string
    assert.isTrue(returned.timed_out, JSON.stringify(returned))
    await showToolRun(page, { pane_id: pane, command: "sleep 3; echo late" })
    await until(
      "the view to show the run ended",
      () => runText(frame),
      (text) => text?.endsWith("(ended, exit status 0)") === true
    )
    assert.strictEqual(await runText(frame), `run ${runId}: sleep 3; echo late (ended, exit status 0)`)
    assert.deepInclude(structured(await call(server, "run_shell_command", { pane_id: pane, resume: runId })), {
      exit_status: 0
    })
    // Collected now: the pane's mark says the same run, and the view keeps its command.
    await until(
      "the collected run",
      () => runText(frame),
      (text) => text === `run ${runId}: sleep 3; echo late (ended, exit status 0)`
    )
  })

  it("follows another pane of the session picked in the view, and keeps polling it", async () => {
    const world = h.world()
    const { server, page, frame, calls } = await open(world)
    const second = await twoPanesShown(server, page, frame, "two")
    await frame.locator("#picker").selectOption(second)
    const from = await pollsOfPicked(frame, calls, second)
    assert.isTrue(calls.slice(from).every((made) => made.arguments.pane_id === second))
  })

  it("asks for a pane picked while a poll was held at the host as soon as that poll ends", async () => {
    const world = h.world()
    const { server, page, frame, calls, hold, held } = await open(world)
    const second = await twoPanesShown(server, page, frame, "slow")
    const release = hold()
    await until("a poll held at the host", () => held.waiting, (waiting) => waiting >= 1)
    await frame.locator("#picker").selectOption(second)
    release()
    await pollsOfPicked(frame, calls, second)
  })

  it("keeps one poll a second however often the page is shown again", async () => {
    const world = h.world()
    const { server, page, frame, calls } = await open(world)
    const created = structured(await call(server, "create_session", { session_name: "shown" }))
    await showToolRun(page, { pane_id: created.pane_id })
    await until("the view to show the pane", () => frame.locator("#pane").textContent(), (id) => id === created.pane_id)
    // Each "visible again" polls at once; none may leave a second timer behind.
    for (let shown = 0; shown < 5; shown++) {
      await frame.evaluate(() => document.dispatchEvent(new Event("visibilitychange")))
    }
    const from = calls.length
    await holdsFor(4_000, "at most about one poll a second", () => calls.length - from <= 6)
  })

  it("sends no request out of the page: the content policy refuses the view's own", async () => {
    let reached = 0
    const listener = createServer((_, response) => {
      reached++
      response.end("no")
    })
    await new Promise<void>((resolve) => listener.listen(0, "127.0.0.1", resolve))
    h.defer(() => void listener.close())
    const world = h.world()
    const { server, page, frame, requests } = await open(world)
    const created = structured(await call(server, "create_session", { session_name: "quiet" }))
    await showToolRun(page, { pane_id: created.pane_id })
    await until("the view to show the pane", () => frame.locator("#pane").textContent(), (id) => id === created.pane_id)
    const url = `http://127.0.0.1:${(listener.address() as AddressInfo).port}/`
    const outcome = await frame.evaluate(async (target) => {
      const image = new Image()
      image.src = `${target}image.png`
      try {
        await fetch(`${target}fetch`)
        return "fetched"
      } catch {
        return "refused"
      }
    }, url)
    assert.strictEqual(outcome, "refused")
    await holdsFor(300, "no request reaches the listener", () => reached === 0)
    assert.deepStrictEqual(requests.filter((request) => !/^(about|data):/u.test(request)), [])
  })
})
