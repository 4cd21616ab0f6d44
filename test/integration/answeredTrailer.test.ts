/**
 * An answered run's discard against a real tmux, when the answer's list lands between the trailer's
 * `run -C` reading its template and running it: tmux expands a `run -C` template as the command starts
 * and runs the result a turn of its event loop later, and another client's list can run in that turn.
 * Here the turn is made by hand: the template is expanded as `run -C` expands it, the answer's rewrite
 * comes, then the text read runs. The template decides as it runs, so the pane still gets its C-c.
 */
import { writeFileSync } from "node:fs"
import { join } from "node:path"
import { afterAll, assert, describe, it } from "vitest"
import { protocolNames } from "../../src/domain/protocolNames.ts"
import { templates } from "../../src/domain/runTemplates.ts"
import { holdsFor, until } from "../support/poll.ts"
import { makeWorld } from "../support/tmux.ts"

const world = makeWorld("answered")
afterAll(() => world.dispose())

/** A pane whose program prints a line each time it gets SIGINT, as a shell would take the trailer's C-c. */
const paneTakingInterrupts = (socket: string) =>
  world.tmux(
    socket,
    "new-session",
    "-d",
    "-P",
    "-F",
    "#{pane_id}",
    "-x",
    "80",
    "-y",
    "24",
    "sh -c 'trap \"echo GOT-INT\" INT; echo ready; while :; do sleep 0.05; done'"
  ).trim()

/**
 * The trailer of run `runId` on `pane` with status 0, as `run -C` runs it: its template expanded
 * first, then (after `between`) the text it read run as a command list.
 */
const trailer = (socket: string, pane: string, runId: string, between: () => void) => {
  const read = world.tmux(socket, "display-message", "-p", "-t", pane, `#{${protocolNames(runId).template}}0'`)
  between()
  const file = join(world.dir, `trailer-${runId}.tmux`)
  writeFileSync(file, read)
  world.tmux(socket, "source-file", file)
}

const screen = (socket: string, pane: string) => world.tmux(socket, "capture-pane", "-p", "-t", pane)

/** A pane running the program above, with run `runId`'s trailer template stored as typing stores it. */
const typedRun = async (socket: string, runId: string) => {
  const pane = paneTakingInterrupts(socket)
  await until("the pane's program", () => screen(socket, pane), (text) => text.includes("ready"))
  const names = protocolNames(runId)
  world.tmux(socket, "set-option", "-p", "-t", pane, names.template, templates(runId, pane).end)
  return { pane, names }
}

describe("an answered run's trailer", () => {
  it("sends C-c when the answer's rewrite comes after run -C read the template, before its list ran", async () => {
    const runId = "a1b2c3"
    const { pane, names } = await typedRun("late", runId)
    trailer("late", pane, runId, () =>
      // What an answer's list stores (domain/runCommands.ts `answerCommands`).
      world.tmux("late", "set-option", "-p", "-t", pane, names.template, templates(runId, pane, false, true).end))
    await until("the C-c on the pane", () => screen("late", pane), (text) => text.includes("GOT-INT"))
    // The rest of the list ran too: the end record is there.
    assert.match(world.tmux("late", "show-options", "-pv", "-t", pane, names.end), /^\d+ \d+ \d+ 0$/mu)
  })

  it("sends nothing when no answer came", async () => {
    const runId = "d4e5f6"
    const { pane, names } = await typedRun("plain", runId)
    trailer("plain", pane, runId, () => undefined)
    assert.match(world.tmux("plain", "show-options", "-pv", "-t", pane, names.end), /^\d+ \d+ \d+ 0$/mu)
    await holdsFor(500, "no C-c on the pane", () => !screen("plain", pane).includes("GOT-INT"))
  })
})
