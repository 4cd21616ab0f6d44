/**
 * Removing what instances of this server left in tmux: this instance's own, and a provably dead
 * instance's (domain/instance.ts), never a live or unjudgeable one's.
 * - paste buffers (named by their instance's tag, domain/protocolNames.ts): a paste interrupted
 *   between its load and its paste;
 * - per-run options of a run that was never typed (its record is there, its typed record is not,
 *   and it holds no claim): the typing list was cut off before its paste (the machine's `Swept`);
 * - waiting `wait-for` clients on a run's channel whose run no pane records any more (collected or
 *   abandoned while its waiter's instance was gone): one signal releases them.
 * A dead instance's run that was typed keeps its record: any instance answers `resume` for it.
 */
import * as Effect from "effect/Effect"
import { judgeInstance, parseTag } from "../domain/instance.ts"
import {
  bufferTag,
  controlSessionTag,
  marks,
  paneRunOptions,
  protocolNames,
  runOfChannel,
  runOfOption
} from "../domain/protocolNames.ts"
import { commandsOf } from "../domain/runMachine.ts"
import { decodeRecord } from "../domain/runRecord.ts"
import type { PinnedRunner as Runner } from "../services/Tmux.ts"
import { type Proc, ticksToMs, uptimeMsOf } from "./Proc.ts"

/** What a sweep reads of /proc. */
type Here = Proc["Service"]

/** How long each invocation of a sweep may take: startup and shutdown stay prompt. */
const sweepTimeoutMs = 1000

/** A waiting client younger than this may be a live call's list that has not yet set its run's record. */
export const orphanAfterMs = 3000

/** Whose a tagged name or record is, as far as a sweep may act: its own, a dead instance's, or hands off. */
const removable = (tag: string | undefined, here: Here, ownOnly: boolean): boolean => {
  if (tag === here.tag) return true
  const instance = tag === undefined || ownOnly ? undefined : parseTag(tag)
  return instance !== undefined && instance.started !== 0 && judgeInstance(instance, here.view) === "dead"
}

/** The paste buffers of this instance (and, unless `ownOnly`, of dead ones). */
export const removeBuffers = (run: Runner, here: Here, ownOnly: boolean): Effect.Effect<void> =>
  run([["list-buffers", "-F", "#{buffer_name}"]], { timeoutMs: sweepTimeoutMs }).pipe(
    Effect.map((stdout) => stdout.split("\n").filter((name) => removable(bufferTag(name), here, ownOnly))),
    Effect.flatMap((names) =>
      names.length === 0
        ? Effect.void
        : run(names.map((name) => ["delete-buffer", "-b", name]), { timeoutMs: sweepTimeoutMs })
    ),
    Effect.ignore
  )

/**
 * Dead instances' hidden sessions (their control connections'), removed now, before this instance
 * opens its own: each one's pane would remove it within 2 s, at a moment nobody chooses, and tmux
 * 3.3a's server crashes when that removal is told to a control client still identifying itself
 * (tmux/tmux#4980). One client each: an error (gone meanwhile) ends the rest of a client's list.
 */
export const removeDeadConnections = (
  run: Runner,
  here: Here,
  sessions: ReadonlyArray<string>
): Effect.Effect<void> =>
  Effect.forEach(
    sessions.filter((name) => removable(controlSessionTag(name), here, false)),
    (name) => Effect.ignore(run([["kill-session", "-t", `=${name}`]], { timeoutMs: sweepTimeoutMs })),
    { discard: true }
  )

/** A pane's run options as `show-options -p` prints them (`name value`, the value quoted when needed). */
const unquote = (value: string): string => value.replace(/^"(.*)"$/u, "$1")

/**
 * The options to unset on one pane: the templates and record of each run never typed whose
 * record's instance is removable.
 */
export const untypedLeftovers = (
  paneId: string,
  shown: ReadonlyArray<string>,
  here: Here
): ReadonlyArray<ReadonlyArray<string>> => {
  const options = new Map(shown.map((line) => {
    const space = line.indexOf(" ")
    return [space === -1 ? line : line.slice(0, space), space === -1 ? "" : unquote(line.slice(space + 1))] as const
  }))
  const claim = options.get(paneRunOptions.claim)
  return [...options].flatMap(([name, value]) => {
    const runId = runOfOption("record", name)
    if (runId === undefined || runId === claim) return []
    const names = protocolNames(runId)
    if (options.has(names.typed) || options.has(names.end)) return []
    if (!removable(decodeRecord(value)?.tag, here, false)) return []
    // The machine's move for it: no run holds the pane (the claim is another's, or none).
    return commandsOf({ _tag: "Free" }, { _tag: "Swept", run: { id: runId, paneId } })
  })
}

/**
 * Every pane's untyped leftovers: three invocations at most, whatever the number of panes. The
 * runs the panes record, or `undefined` when they could not be read.
 */
const removeUntyped = (run: Runner, here: Here): Effect.Effect<ReadonlySet<string> | undefined> =>
  Effect.gen(function*() {
    const panes = (yield* run([["list-panes", "-a", "-F", "#{pane_id}"]], { timeoutMs: sweepTimeoutMs }))
      .split("\n").filter((pane) => /^%[0-9]+$/u.test(pane))
    if (panes.length === 0) return new Set<string>()
    const marker = marks.sweep(here.tag)
    // Each pane's options after a line naming it; every command names its pane (so the connection carries it).
    const look = (pane: string) => {
      const named = ["display-message", "-p", "-t", pane, `${marker} ${pane}`]
      return [named, ["show-options", "-p", "-t", pane]]
    }
    const stdout = yield* run(panes.flatMap(look), { timeoutMs: sweepTimeoutMs })
    const recorded = new Set<string>()
    const unsets: Array<ReadonlyArray<string>> = []
    for (const block of stdout.split(`${marker} `).slice(1)) {
      const [pane = "", ...lines] = block.split("\n")
      for (const line of lines) {
        const runId = runOfOption("record", line.slice(0, line.indexOf(" ")))
        if (runId !== undefined) recorded.add(runId)
      }
      unsets.push(...untypedLeftovers(pane, lines, here))
    }
    if (unsets.length > 0) yield* run(unsets, { timeoutMs: sweepTimeoutMs })
    return recorded
  }).pipe(Effect.orElseSucceed(() => undefined))

/** The channels of run waiters on this socket (`flags`) older than `orphanAfterMs`, from /proc. */
export const waitingChannels = (flags: ReadonlyArray<string>, here: Here): ReadonlySet<string> => {
  const channels = new Set<string>()
  if (flags.length === 0) return channels
  const uptimeMs = uptimeMsOf(here.files)
  if (uptimeMs === undefined) return channels
  for (const pid of here.files.list("/proc").filter((entry) => /^[0-9]+$/u.test(entry))) {
    const argv = (here.files.read(`/proc/${pid}/cmdline`) ?? "").split("\0")
    const at = argv.indexOf("wait-for")
    const channel = at === -1 ? undefined : argv[at + 1]
    if (channel === undefined || runOfChannel(channel) === undefined) continue
    if (argv.slice(2, 2 + flags.length).join("\0") !== flags.join("\0")) continue
    const started = ticksToMs(here.stat(Number(pid))?.started ?? Number.NaN, here.ticksPerSecond())
    if (Number.isFinite(started) && uptimeMs - started >= orphanAfterMs) {
      channels.add(channel)
    }
  }
  return channels
}

/**
 * The sweep at startup: dead instances' buffers and untyped runs, and waiters whose run no pane
 * records. Best effort: no server, a slow one or one that goes away end it quietly.
 */
export const sweepLeftovers = (run: Runner, here: Here, flags: ReadonlyArray<string>): Effect.Effect<void> =>
  Effect.gen(function*() {
    yield* removeBuffers(run, here, false)
    const recorded = yield* removeUntyped(run, here)
    // Without the panes' records, no waiter can be told an orphan.
    if (recorded === undefined) return
    const orphaned = [...waitingChannels(flags, here)].filter((channel) => !recorded.has(runOfChannel(channel)!))
    if (orphaned.length > 0) {
      yield* run(orphaned.map((channel) => ["wait-for", "-S", channel]), { timeoutMs: sweepTimeoutMs })
    }
  }).pipe(Effect.ignore)
