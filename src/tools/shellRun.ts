/**
 * The effects of run_shell_command's completion protocol (the pure parts are in
 * domain/shellProtocol.ts): readiness checks before typing, typing, waiting on the per-call
 * channel, reading the output back, and cleaning up so that nothing outlives the call.
 */
import * as Clock from "effect/Clock"
import * as Effect from "effect/Effect"
import { randomBytes } from "node:crypto"
import { extractOutput, parseEndRecord, protocolNames, shellKind, type ShellKind, supportedShells } from "../domain/shellProtocol.ts"
import { PaneGone, PaneNotReady } from "../services/errors.ts"
import { PaneProcess } from "../services/PaneProcess.ts"
import { PaneCommand } from "../services/Tmux.ts"
import { orPaneNotFound, readPane, relativeRow, stateFields } from "./pane.ts"

/** A fresh random ID for one call's options and channel. */
export const newCallId = (): string => randomBytes(6).toString("hex")

/** How long a fresh pane may take to show its first prompt before we type anyway. */
const readinessLimitMs = 5_000
const readinessPollMs = 25
const foregroundGraceMs = 500

/**
 * Waits until the pane's shell is at its prompt: a shell this protocol can drive, itself in the
 * foreground of its terminal, not in a mode or on the alternate screen, and something drawn (a
 * fresh pane's shell may not have read its terminal yet). Refuses with what is in the way.
 */
export const awaitShellReady = (paneId: string, deadline: number) =>
  Effect.gen(function*() {
    const processes = yield* PaneProcess
    const startedAt = yield* Clock.currentTimeMillis
    const limit = Math.min(deadline, startedAt + readinessLimitMs)
    // A foreground process may be momentary (the previous call's trailer exiting): look again briefly.
    const graceLimit = Math.min(deadline, startedAt + foregroundGraceMs)
    while (true) {
      const state = yield* readPane(paneId, stateFields)
      if (state.pane_dead) return yield* new PaneGone({ pane: paneId, reason: "is dead (its process exited); respawn it or use another pane" })
      if (state.pane_in_mode) {
        return yield* new PaneNotReady({
          pane: paneId,
          reason: "it is in copy mode (or another tmux mode), so typed keys would go to the mode",
          remedy: "leave the mode first (send_keys with keys \"q\" and enter false), then try again"
        })
      }
      if (state.alternate_on) {
        return yield* new PaneNotReady({
          pane: paneId,
          reason: `a full-screen program (${state.pane_current_command}) is showing on the alternate screen`,
          remedy: "quit it first (for example send_keys \"q\" or C-c with enter false), or run the command in another pane (split_window)"
        })
      }
      const foreground = yield* processes.foreground(state.pane_pid)
      const shell = foreground?.shell ?? state.pane_current_command
      const kind = shellKind(shell)
      const shellAtPrompt = foreground === undefined ? kind !== undefined : foreground.shellInForeground
      const drawn = state.cursor_x > 0 || state.cursor_y > 0 || state.history_size > 0
      if (kind !== undefined && shellAtPrompt && drawn) return { state, kind, shell }
      // Only a fresh pane (nothing drawn yet) is worth waiting for; anything else is refused soon.
      const now = yield* Clock.currentTimeMillis
      if ((!drawn && now < limit) || (kind !== undefined && !shellAtPrompt && now < graceLimit)) {
        yield* Effect.sleep(readinessPollMs)
        continue
      }
      if (kind === undefined) {
        return yield* new PaneNotReady({
          pane: paneId,
          reason: `its process is ${shell}, which run_shell_command cannot drive (it drives ${supportedShells})`,
          remedy: "use send_keys to type into it, or a pane running a supported shell"
        })
      }
      if (!shellAtPrompt) {
        return yield* new PaneNotReady({
          pane: paneId,
          reason: `${foreground?.foreground ?? "another program"} is running in the foreground, not the shell (perhaps an earlier command still running)`,
          remedy: "wait for it (wait_for_text or capture_since), interrupt it (send_keys C-c with enter false), or use another pane"
        })
      }
      // A shell at the front with nothing drawn yet: its terminal keeps what we type.
      return { state, kind, shell }
    }
  })

const separator = (id: string) => `lmcp-sep-${id}`

/** The capture commands of a read-back from relative row `from`, split by separator lines. */
const captureCommands = (paneId: string, id: string, from: number | "-"): ReadonlyArray<readonly ["display-message" | "capture-pane", ...Array<string>]> => [
  ["display-message", "-p", "-t", paneId, separator(id)],
  ["capture-pane", "-p", "-N", "-t", paneId, "-S", String(from), "-E", "-"],
  ["display-message", "-p", "-t", paneId, separator(id)],
  ["capture-pane", "-p", "-J", "-t", paneId, "-S", String(from), "-E", "-"]
]

const splitCapture = (stdout: string, id: string) => {
  const parts = stdout.split(`${separator(id)}\n`)
  const lines = (text: string | undefined) => {
    const all = (text ?? "").split("\n")
    return all.slice(0, all.length - 1)
  }
  return { head: lines(parts[0]), rows: lines(parts[1]), joined: lines(parts[2]) }
}

/** The result of reading a run back. @category models */
export interface ReadBack {
  readonly lines: ReadonlyArray<string>
  readonly status: number | undefined
  readonly startLost: boolean
}

/**
 * Reads the output back from the pane, from the prompt row `startAbs` to the end the trailer
 * recorded (or, without a record, the cursor). The first invocation's `head` carries the trailer's
 * record and the pane's current history size; rows are recaptured while the history moved.
 */
const readOutput = (paneId: string, id: string, startAbs: number, stdout: string, capturedFrom: number) =>
  Effect.gen(function*() {
    const tmux = yield* PaneCommand
    let { head, rows, joined } = splitCapture(stdout, id)
    const [record = "", historyText = "0", cursorYText = "0", cursorXText = "0", startRecord = ""] = (head.at(-1) ?? "").split("|")
    const [startHistory, startCursor, startColumn] = startRecord.split(" ").map(Number)
    const markedStart = startHistory === undefined || startCursor === undefined || startColumn === undefined || Number.isNaN(startHistory + startCursor + startColumn)
      ? undefined
      : { row: startHistory + startCursor, column: startColumn }
    const end = parseEndRecord(record)
    let history = Number(historyText)
    // The history size and the rows from `start`, in one invocation.
    const recapture = (start: number | "-") =>
      Effect.map(tmux.run([["display-message", "-p", "-t", paneId, "#{history_size}"], ...captureCommands(paneId, id, start)]), (text) => splitCapture(text, id))
    let from = capturedFrom
    for (let attempt = 0; attempt < 3 && from !== relativeRow(startAbs, history); attempt++) {
      from = relativeRow(startAbs, history)
      const again = yield* recapture(from)
      ;({ rows, joined } = again)
      history = Number(again.head.at(-1) ?? history)
    }
    const firstAbs = history + from
    const endAbs = end === undefined ? history + Number(cursorYText) : end.historySize + end.cursorY
    const endColumn = end === undefined ? Number(cursorXText) : end.cursorX
    let extracted = extractOutput(rows, joined, id, endAbs - firstAbs, endColumn, markedStart === undefined ? undefined : { row: markedStart.row - firstAbs, column: markedStart.column })
    if (!extracted.startFound && from > -history) {
      // History moved under us (trimmed at its limit): look for the start in all of it.
      const all = yield* recapture("-")
      extracted = extractOutput(all.rows, all.joined, id, endAbs, endColumn, markedStart)
    }
    return { lines: extracted.lines, status: end?.status, startLost: !extracted.startFound } satisfies ReadBack
  })

const readHead = (paneId: string, id: string) => {
  const names = protocolNames(id)
  return [
    ["display-message", "-p", "-t", paneId, `#{${names.end}}|#{history_size}|#{cursor_y}|#{cursor_x}|#{${names.start}}`],
    ["set-option", "-su", names.waiting],
    ["set-option", "-pu", "-t", paneId, names.end],
    ["set-option", "-pu", "-t", paneId, names.start]
  ] as const
}

/**
 * Types the wrapped command and waits on the call's channel, then reads back, all in one tmux
 * invocation when the text is short (a client message must stay under 16 KiB; longer text goes
 * ahead in chunks). The waiting marker is set in the same invocation that types, so the trailer can
 * never find it missing. `startGuess` is the prompt row the readiness check saw.
 */
export const typeAndAwait = (paneId: string, id: string, text: string, startGuess: number, historyGuess: number, timeoutMs: number) =>
  Effect.gen(function*() {
    const tmux = yield* PaneCommand
    const names = protocolNames(id)
    const chunks = text.match(/[\s\S]{1,6000}/gu) ?? [""]
    const position = ["display-message", "-p", "-t", paneId, "#{history_size} #{cursor_y}"] as const
    const marker = ["set-option", "-s", names.waiting, "1"] as const
    for (const [index, chunk] of chunks.slice(0, -1).entries()) {
      yield* tmux.run([...(index === 0 ? [marker] : []), ["send-keys", "-t", paneId, "-l", "--", chunk]]).pipe(orPaneNotFound(paneId))
    }
    const from = relativeRow(startGuess, historyGuess)
    const stdout = yield* tmux.run(
      [
        position,
        ...(chunks.length === 1 ? [marker] : []),
        ["send-keys", "-t", paneId, "-l", "--", chunks.at(-1)!],
        ["send-keys", "-t", paneId, "Enter"],
        ["wait-for", names.channel],
        ...readHead(paneId, id),
        ...captureCommands(paneId, id, from)
      ],
      { timeoutMs: Math.max(1, timeoutMs) }
    ).pipe(orPaneNotFound(paneId))
    const [history = "0", cursor = "0"] = (stdout.split("\n")[0] ?? "").split(" ")
    return yield* readOutput(paneId, id, Number(history) + Number(cursor), stdout.slice(stdout.indexOf("\n") + 1), from)
  })

/**
 * After a timeout: withdraw the waiting marker and clear the end record in one invocation, so a
 * late trailer neither records nor signals. If the trailer ran just before, its signal is latched:
 * consume it and report the completion after all.
 */
export const withdraw = (paneId: string, id: string, startAbs: number, historyGuess: number) =>
  Effect.gen(function*() {
    const tmux = yield* PaneCommand
    const names = protocolNames(id)
    const from = relativeRow(startAbs, historyGuess)
    const stdout = yield* tmux.run([...readHead(paneId, id), ...captureCommands(paneId, id, from)]).pipe(orPaneNotFound(paneId))
    const result = yield* readOutput(paneId, id, startAbs, stdout, from)
    if (result.status !== undefined) yield* tmux.run([["wait-for", names.channel]], { timeoutMs: 2_000 }).pipe(Effect.ignore)
    return result
  })

/** Cleanup when the call is interrupted: the same withdrawal, without reading anything back. */
export const withdrawQuietly = (paneId: string, id: string) =>
  Effect.gen(function*() {
    const tmux = yield* PaneCommand
    const names = protocolNames(id)
    const stdout = yield* tmux.run(readHead(paneId, id), { timeoutMs: 2_000 })
    if (parseEndRecord((stdout.split("\n")[0] ?? "").split("|")[0] ?? "") !== undefined) {
      yield* tmux.run([["wait-for", names.channel]], { timeoutMs: 2_000 })
    }
  }).pipe(Effect.ignore)

export type { ShellKind }
