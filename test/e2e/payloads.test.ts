/**
 * Payloads at the edges of what tmux carries: multi-byte text past tmux's 16 KiB message limit is
 * delivered whole, what tmux cannot carry (NUL) is refused before anything is sent, and no path
 * prints a payload on stderr.
 */
import * as Cause from "effect/Cause"
import { existsSync, readFileSync } from "node:fs"
import { join } from "node:path"
import { assert, describe, it } from "vitest"
import { shellQuote } from "../../src/domain/quote.ts"
import { defectSummary } from "../../src/wire/McpServer.ts"
import { call, textOf } from "../support/mcp.ts"
import { until } from "../support/poll.ts"
import { run, runHarness } from "../support/runs.ts"

const { open: openPane } = runHarness("payloads")
// What tmux delivers is the same in process; what the server prints on stderr is the bin's.
const { open: openInProcess } = runHarness("payloads", { inProcess: true })
/**
 * A pane whose shell is at its prompt: keys typed into a shell still starting land in the
 * terminal's line buffer, which keeps 4 KiB of a line and drops the rest.
 */
const open = async () => {
  const opened = await openPane()
  await run(opened.c, opened.pane, "true")
  return opened
}
const tag = (result: { readonly _meta?: Record<string, unknown> | undefined }) =>
  result._meta?.["com.git-pull.libtmux-mcp/error"]

/**
 * A pane whose program writes every byte it receives to a file: the terminal in raw mode, so no
 * line editor or line buffer stands between what tmux sends and what arrives.
 */
const rawSink = async () => {
  const { world, c } = await openInProcess()
  const file = join(world.dir, "received")
  const ready = join(world.dir, "raw")
  const pane = world.tmux(
    "libtmux-mcp",
    "new-session",
    "-d",
    "-P",
    "-F",
    "#{pane_id}",
    `stty raw -echo && touch ${shellQuote(ready)} && exec cat > ${shellQuote(file)}`
  ).trim()
  // Typed before stty, the text would meet the line buffer it is here to avoid.
  await until("the raw terminal", () => existsSync(ready))
  return { c, pane, received: () => existsSync(file) ? readFileSync(file, "utf8") : "" }
}

/** What the sink received once it holds `bytes` bytes (what it holds then, when that never comes). */
const receivedOnce = (received: () => string, bytes: number) =>
  until(`${bytes} bytes in the sink`, received, (text) => Buffer.byteLength(text) >= bytes).catch(() => received())

describe("multi-byte payloads", () => {
  it("send_keys delivers the 10,000 characters its schema allows, three-byte ones included", async () => {
    const { c, pane, received } = await rawSink()
    const text = "二".repeat(9_990) + "0123456789"
    const sent = await call(c, "send_keys", { pane_id: pane, keys: text, literal: true, enter: false })
    assert.isNotTrue(sent.isError, textOf(sent))
    assert.strictEqual(await receivedOnce(received, Buffer.byteLength(text)), text)
  })

  it("send_keys_batch sends nothing if an operation cannot be carried, and every operation when all can", async () => {
    const { c, pane, received } = await rawSink()
    const refused = await call(c, "send_keys_batch", {
      operations: [{ pane_id: pane, keys: "first-op", literal: true, enter: false }, {
        pane_id: pane,
        keys: "a\u0000b"
      }]
    })
    assert.strictEqual(tag(refused), "InputInvalid")
    assert.include(textOf(refused), "NUL")
    const big = "語".repeat(6_000)
    const sent = await call(c, "send_keys_batch", {
      operations: [
        { pane_id: pane, keys: big, literal: true, enter: false },
        { pane_id: pane, keys: "second-op", literal: true, enter: false }
      ]
    })
    assert.isNotTrue(sent.isError, textOf(sent))
    assert.strictEqual(await receivedOnce(received, Buffer.byteLength(big + "second-op")), big + "second-op")
  })
})

describe("NUL and defects", () => {
  it("refuses NUL in keys and in respawn_pane's command, naming it, and prints no payload on stderr", async () => {
    const { c, pane } = await open()
    const secret = "s3cret-payload"
    for (
      const [name, args] of [
        ["send_keys", { pane_id: pane, keys: `${secret}\u0000x` }],
        ["respawn_pane", { pane_id: pane, command: `${secret}\u0000x`, kill: true }]
      ] as const
    ) {
      const result = await call(c, name, args)
      assert.strictEqual(tag(result), "InputInvalid", name)
      assert.include(textOf(result), "NUL")
    }
    assert.notInclude(c.stderr(), secret)
  })

  it("prints a defect's name and stack frames, never its message", () => {
    const summary = defectSummary(Cause.die(new TypeError("argument 'abc s3cret' must be a string without null bytes")))
    assert.include(summary, "TypeError")
    assert.notInclude(summary, "s3cret")
  })
})
