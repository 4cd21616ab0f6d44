/**
 * A run's record as it lives in tmux, on its pane: everything `resume` and the output need, so any
 * server instance on the socket answers for any run whose pane still exists, after a restart too.
 * Stored as one pane option (`@lmcp_run_<id>`), versioned, base64 of JSON: no character of it can
 * be read by tmux as a format or a separator.
 *
 * An answer that leaves the run unfinished writes into the record where its output ended
 * (`returned`): the next answer, by any instance, returns what came after.
 *
 * Beside it, pane options say who holds the pane:
 * - `@lmcp_claim`: the run typed in the pane whose trailer has not yet run. Set with `-o` in the
 *   invocation that types (tmux refuses to set it again, and drops the rest of that list), and
 *   unset by the run's trailer, so a finished run never holds the pane.
 * - `@lmcp_last`: the last run typed in the pane and not yet collected: what a new run reports as
 *   `earlier_run` when nobody collected it.
 * - `@lmcp_gen` and `@lmcp_g<N>`: the pane's typing generation. A run read generation N with the
 *   pane's state it types from; it sets `@lmcp_g<N+1>` with `-o`, so when another run was typed
 *   since (and took N+1), tmux refuses, and nothing is typed from a view that is out of date.
 */
import { createHash } from "node:crypto"
import type { Run } from "../services/ShellRuns.ts"
import { isPaneId } from "./ids.ts"
import { runIdPattern } from "./shellProtocol.ts"

/** The record's version: a record of another version is not read. */
export const recordVersion = 1

/** Names of the pane options that hold runs. */
export const paneRunOptions = {
  claim: "@lmcp_claim",
  last: "@lmcp_last",
  generation: "@lmcp_gen",
  /** Held by the run that typed generation `n`. */
  typedAt: (n: number) => `@lmcp_g${n}`,
  record: (runId: string) => `@lmcp_run_${runId}`,
  /** Taken (with `-o`) by the one run that takes over a claim whose run never reported. */
  successor: (runId: string) => `@lmcp_next_${runId}`
} as const

/** What a record says of the command, for a refusal that names it: a short prefix and a digest. */
export const describeCommand = (command: string) => ({
  prefix: [...command.replace(/\s+/gu, " ").trim()].slice(0, 24).join(""),
  digest: createHash("sha256").update(command).digest("hex").slice(0, 12)
})

/**
 * The row the output an answer returned ended on (absolute), as placed when the typed row was
 * `shift` rows above its recorded place (a trim moves both alike). The next answer starts at this
 * row: a line the answer ended within comes again, whole (a program that moves the cursor back,
 * such as a progress line or a pager's prompt, rewrites it). @category models
 */
export interface ReadPosition {
  readonly row: number
  readonly shift: number
}

/** A run as recorded: the run itself, the instance that typed it, and its command's description. */
export interface RunRecord {
  readonly run: Run
  /** The process ID of the server instance that typed it. */
  readonly instance: number
  /** That instance's tag (domain/instance.ts): what tells whether it is dead; absent in older records. */
  readonly tag?: string
  readonly command: { readonly prefix: string; readonly digest: string }
  /** Where the previous answer for the run ended: the next one returns what came after. */
  readonly returned?: ReadPosition
}

/** The option value of a record. */
export const encodeRecord = (record: RunRecord): string =>
  Buffer.from(JSON.stringify({ v: recordVersion, ...record })).toString("base64")

const isRun = (value: unknown): value is Run => {
  if (typeof value !== "object" || value === null) return false
  const run = value as Record<string, unknown>
  const strings = ["id", "paneId", "tty", "shell", "trailer", "prompt", "typedStart"]
  const numbers = ["panePid", "promptRow", "echoRows", "screenRows"]
  return strings.every((key) => typeof run[key] === "string") &&
    numbers.every((key) => Number.isSafeInteger(run[key])) && typeof run.markStart === "boolean" &&
    ["undefined", "boolean"].includes(typeof run.inShell) &&
    (run.remainOnExit === undefined || run.remainOnExit === "off" || run.remainOnExit === "failed") &&
    runIdPattern.test(run.id as string) && isPaneId(run.paneId as string)
}

/**
 * The record in pane `paneId`'s option for run `runId`, or `undefined`: one that names another run
 * or another pane (copied or forged there) is not that run's record, and nothing acts on it.
 */
export const recordOf = (value: string, paneId: string, runId: string): RunRecord | undefined => {
  const record = decodeRecord(value)
  return record?.run.id === runId && record.run.paneId === paneId ? record : undefined
}

/** Reads a record back, or `undefined` when it is absent, of another version or malformed. */
export const decodeRecord = (value: string): RunRecord | undefined => {
  if (value === "") return undefined
  try {
    const parsed = JSON.parse(Buffer.from(value, "base64").toString("utf8")) as Record<string, unknown>
    const command = parsed.command as Record<string, unknown> | undefined
    if (parsed.v !== recordVersion || !isRun(parsed.run) || !Number.isSafeInteger(parsed.instance)) return undefined
    if (typeof command?.prefix !== "string" || typeof command.digest !== "string") return undefined
    const returned = parsed.returned as Record<string, unknown> | undefined
    const position = ["row", "shift"].every((key) => Number.isSafeInteger(returned?.[key]))
      ? { returned: { row: returned!.row, shift: returned!.shift } as ReadPosition }
      : {}
    return {
      run: parsed.run,
      instance: parsed.instance as number,
      ...(typeof parsed.tag === "string" ? { tag: parsed.tag } : {}),
      command: { prefix: command.prefix, digest: command.digest },
      ...position
    }
  } catch {
    return undefined
  }
}
