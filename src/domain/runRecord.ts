/**
 * A run's record as it lives in tmux, on its pane: everything `resume` and the output need, so any
 * server instance on the socket answers for any run whose pane still exists, after a restart too.
 * Stored as one pane option (`@lmcp_run_<id>`), versioned, base64 of JSON: no character of it can
 * be read by tmux as a format or a separator.
 *
 * An answer that leaves the run unfinished writes into the record where its output ended
 * (`returned`): the next answer, by any instance, returns what came after.
 *
 * Beside it, pane options say who holds the pane (domain/protocolNames.ts).
 */
import * as Result from "effect/Result"
import * as Schema from "effect/Schema"
import { createHash } from "node:crypto"
import { sliceCells } from "./cells.ts"
import { PaneId } from "./ids.ts"
import { runIdPattern } from "./protocolNames.ts"
import type { ScreenSeen } from "./screenSeen.ts"
import { taskNoncePattern } from "./tasks.ts"

/** The record's version: a record of another version is not read. */
export const recordVersion = 1

/** What a record says of the command, for a refusal that names it: a short prefix and a digest. */
export const describeCommand = (command: string) => ({
  prefix: [...command.replace(/\s+/gu, " ").trim()].slice(0, 24).join(""),
  digest: createHash("sha256").update(command).digest("hex").slice(0, 12)
})

/**
 * Where the output an answer returned ended (absolute row), as placed when the typed row was
 * `shift` rows above its recorded place (a trim moves both alike). When it ended within a row,
 * also the cell column, a digest of that row's cells before it, and the row its line begins on: the
 * next answer starts at the column while those cells are unchanged, and at the line's start when
 * they were rewritten (a program that moves the cursor back, such as a progress line). Records
 * written before the column was kept start the next answer at the row, whole. @category models
 */
export interface ReadPosition {
  readonly row: number
  readonly shift: number
  /** The cell column the output ended at on `row`; absent when it ended at the row's start. */
  readonly column?: number
  /** `rowDigest` of `row`'s cells before `column`, as the answer read them. */
  readonly before?: string
  /** The row the line holding `row` begins on (it wraps on into `row`), at the same shift. */
  readonly lineRow?: number
}

/**
 * A short digest of a row's cells before `column`: what tells whether they were rewritten, without
 * keeping them. Spaces at its end are left out: a cell never written and a blank one look alike.
 */
export const rowDigest = (cells: string, column: number): string =>
  createHash("sha256").update(sliceCells(cells, column).trimEnd()).digest("hex").slice(0, 16)

/** A run as recorded: the run itself, the instance that typed it, and its command's description. */
/** A run that was typed and is not yet collected (kept by services/ShellRuns.ts). @category models */
export interface Run {
  readonly id: string
  readonly paneId: PaneId
  readonly panePid: number
  /** The pane's terminal (`/dev/pts/N`). */
  readonly tty: string
  readonly shell: string
  /**
   * The absolute row (history size + cursor row) of the prompt at readiness: the echo starts at or
   * below it. -1 when the run typed without a look (domain/typingGuard.ts): its typed record says.
   */
  readonly promptRow: number
  /** The last typed line, whose echo ends where the output begins. */
  readonly trailer: string
  /** Whether a start mark records where the output begins (shells without a line editor). */
  readonly markStart: boolean
  /** The cells before the cursor on the prompt row at readiness. */
  readonly prompt: string
  /** The first word typed, the protocol's opening: what any run's echo shows after the prompt. */
  readonly typedStart: string
  /** Rows from the typed row that hold the echo at most. */
  readonly echoRows: number
  /** The pane's height when typed. */
  readonly screenRows: number
  /**
   * What a watcher of this run saw draw on the screen (a pager, a full-screen program), carried to
   * the answers it holds for (domain/screenSeen.ts).
   */
  readonly screenSeen?: ReadonlyArray<ScreenSeen>
  /** The command runs in the shell itself (in_shell, and always in fish): an `exit` ends the shell. */
  readonly inShell?: boolean
  /**
   * For an in-shell run, the shell's image when it was typed (ShellProcess.image): another one
   * under the same pid says the command replaced the shell (`exec`).
   */
  readonly image?: string
  /**
   * The pane's `remain-on-exit` before the run set it on to keep the pane for an `exit`; absent
   * when the run set nothing (not in the shell, or it was on already).
   */
  readonly remainOnExit?: string
}

/**
 * The MCP task that follows a run (wire/Tasks.ts): the unguessable part of its ID, and when it was
 * made and for how long it is kept, in epoch milliseconds. Any instance that reads the record
 * answers the task; a task ID whose nonce differs is not this run's. @category models
 */
export interface RecordedTask {
  readonly nonce: string
  readonly created: number
  readonly ttlMs: number
}

export interface RunRecord {
  readonly run: Run
  /** The process ID of the server instance that typed it. */
  readonly instance: number
  /** That instance's tag (domain/instance.ts): what tells whether it is dead; absent in older records. */
  readonly tag?: string
  readonly command: { readonly prefix: string; readonly digest: string }
  /** Where the previous answer for the run ended: the next one returns what came after. */
  readonly returned?: ReadPosition
  /** The task that follows the run, when a tasks-capable client's call typed it. */
  readonly task?: RecordedTask
}

/** A run as its record holds it: what `Run` keeps, checked field by field. */
const RecordedRun = Schema.Struct({
  id: Schema.String.check(Schema.isPattern(runIdPattern)),
  paneId: PaneId,
  panePid: Schema.Int,
  tty: Schema.String,
  shell: Schema.String,
  promptRow: Schema.Int,
  trailer: Schema.String,
  markStart: Schema.Boolean,
  prompt: Schema.String,
  typedStart: Schema.String,
  echoRows: Schema.Int,
  screenRows: Schema.Int,
  inShell: Schema.optionalKey(Schema.Boolean),
  remainOnExit: Schema.optionalKey(Schema.Literals(["off", "failed"]))
})

/** The record's JSON, its version first: a record of another version is not this one. */
const RecordJson = Schema.Struct({
  v: Schema.Literal(recordVersion),
  run: RecordedRun,
  instance: Schema.Int,
  tag: Schema.optionalKey(Schema.String),
  command: Schema.Struct({ prefix: Schema.String, digest: Schema.String }),
  // Column, digest and line row came later: a record without them is read as before.
  returned: Schema.optionalKey(Schema.Struct({
    row: Schema.Int,
    shift: Schema.Int,
    column: Schema.optionalKey(Schema.Int),
    before: Schema.optionalKey(Schema.String),
    lineRow: Schema.optionalKey(Schema.Int)
  })),
  // A task came later too: a record without one follows no task.
  task: Schema.optionalKey(Schema.Struct({
    nonce: Schema.String.check(Schema.isPattern(taskNoncePattern)),
    created: Schema.Int,
    ttlMs: Schema.Int
  }))
})

/** The record's codec: JSON text to a checked record and back (the option holds its base64). */
const recordCodec = Schema.fromJsonString(RecordJson)

/** The option value of a record. */
export const encodeRecord = (record: RunRecord): string => {
  const { run, instance, tag, command, returned, task } = record
  const json = Schema.encodeSync(recordCodec)({
    v: recordVersion,
    run: {
      id: run.id,
      paneId: run.paneId,
      panePid: run.panePid,
      tty: run.tty,
      shell: run.shell,
      promptRow: run.promptRow,
      trailer: run.trailer,
      markStart: run.markStart,
      prompt: run.prompt,
      typedStart: run.typedStart,
      echoRows: run.echoRows,
      screenRows: run.screenRows,
      ...(run.inShell === undefined ? {} : { inShell: run.inShell }),
      ...(run.remainOnExit === "off" || run.remainOnExit === "failed" ? { remainOnExit: run.remainOnExit } : {})
    },
    instance,
    ...(tag === undefined ? {} : { tag }),
    command: { prefix: command.prefix, digest: command.digest },
    ...(returned === undefined ? {} : { returned: positionJson(returned) }),
    ...(task === undefined ? {} : { task: { nonce: task.nonce, created: task.created, ttlMs: task.ttlMs } })
  })
  return Buffer.from(json).toString("base64")
}

/** A position's JSON: the fields it has, no others. */
const positionJson = (position: ReadPosition) => ({
  row: position.row,
  shift: position.shift,
  ...(position.column === undefined ? {} : { column: position.column }),
  ...(position.before === undefined ? {} : { before: position.before }),
  ...(position.lineRow === undefined ? {} : { lineRow: position.lineRow })
})

/** What a record option holds: nothing, a record, or something that does not decode (and why). */
export type RecordRead =
  | { readonly _tag: "Absent" }
  | { readonly _tag: "Decoded"; readonly record: RunRecord }
  | { readonly _tag: "Undecodable"; readonly reason: string }

/** Reads a record option; a record of another version, or a damaged one, is reported, never guessed at. */
export const readRecord = (value: string): RecordRead => {
  if (value === "") return { _tag: "Absent" }
  const text = Buffer.from(value, "base64").toString("utf8")
  const decoded = Schema.decodeUnknownResult(recordCodec)(text)
  if (Result.isSuccess(decoded)) {
    const { v: _version, ...record } = decoded.success
    return { _tag: "Decoded", record }
  }
  return { _tag: "Undecodable", reason: undecodable(text) }
}

/** Why a record's text does not decode: another version, or damage. */
const undecodable = (text: string): string => {
  try {
    const version = (JSON.parse(text) as { readonly v?: unknown } | null)?.v
    if (version !== recordVersion && (typeof version === "number" || typeof version === "string")) {
      return `it is a record of version ${JSON.stringify(version).slice(0, 20)}, and this server reads version ` +
        `${recordVersion}`
    }
    return "it is damaged (not a run's record of the form this server writes)"
  } catch {
    return "it is damaged (not base64 of JSON)"
  }
}

/**
 * The record in pane `paneId`'s option for run `runId`, or `undefined`: one that names another run
 * or another pane (copied or forged there) is not that run's record, and nothing acts on it.
 */
export const recordOf = (value: string, paneId: string, runId: string): RunRecord | undefined => {
  const record = decodeRecord(value)
  return record?.run.id === runId && record.run.paneId === paneId ? record : undefined
}

/** A record, or `undefined` when the option is empty or does not decode (see `readRecord`). */
export const decodeRecord = (value: string): RunRecord | undefined => {
  const read = readRecord(value)
  return read._tag === "Decoded" ? read.record : undefined
}

/** How a collected run ended: its status report came, it never came, or its command ended the shell. */
export type RunEnding = "reported" | "unreported" | "shell-exited"

/** What is kept of a collected run, in its pane's `paneRunOptions.collected`. @category models */
export interface CollectedMark {
  readonly runId: string
  /** Its exit status (the shell's, when the command ended the shell); null when none was reported. */
  readonly status: number | null
  readonly ended: RunEnding
  /** The tag of the server instance that collected it (domain/instance.ts). */
  readonly collector: string
  /** When, in epoch milliseconds. */
  readonly at: number
}

/** The mark's option value: words tmux stores as they are. */
export const encodeMark = (mark: CollectedMark): string =>
  `${mark.runId} ${mark.status ?? "-"} ${mark.ended} ${mark.collector} ${mark.at}`

/** A mark read back, or `undefined` when the option is empty or not a mark. */
export const decodeMark = (value: string): CollectedMark | undefined => {
  const match = /^([0-9a-f]{6}) (-|[0-9]{1,3}) (reported|unreported|shell-exited) ([0-9.]{1,64}) ([0-9]{1,15})$/u
    .exec(value)
  if (match === null) return undefined
  const [, runId, status, ended, collector, at] = match as unknown as [
    string,
    string,
    string,
    RunEnding,
    string,
    string
  ]
  return { runId, status: status === "-" ? null : Number(status), ended, collector, at: Number(at) }
}

/** `runId`'s mark among a pane's marks (`value`: one, or the head's three joined by `/`). */
export const markOf = (runId: string, value: string): CollectedMark | undefined =>
  value.split("/").map(decodeMark).find((mark) => mark?.runId === runId)
