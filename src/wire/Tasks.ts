/**
 * Runs served as MCP tasks (the `io.modelcontextprotocol/tasks` extension of 2026-07-28), for the
 * requests that declare it: a run_shell_command still working at the threshold, or blocked on input
 * before it, answers with a task; the host polls `tasks/get`, answers a program's question with
 * `tasks/update` and stops the run with `tasks/cancel`.
 *
 * A task is the run: its ID names the pane and the run, its nonce is in the run's record in tmux
 * (domain/tasks.ts), and everything it reports comes from run_shell_command's own resume, called
 * through the registry (decoded, guarded and audited as any call). So any instance on the socket,
 * and a restarted one, answers for it. This instance follows each task it was asked about with
 * one watcher: a resume that waits for the run's end (up to 10 s a time, at a background pace)
 * while the task is polled; `tasks/get` answers from what the watcher last saw, at no cost to tmux.
 */
import type { CallToolResult, JSONRPCRequest } from "@modelcontextprotocol/sdk/types.js"
import * as Effect from "effect/Effect"
import * as Exit from "effect/Exit"
import * as Fiber from "effect/Fiber"
import type { CallOutcome, Registry, ToolNotSelected } from "../dispatch/Registry.ts"
import { controlCharacter, maxAnswer } from "../domain/answerText.ts"
import type { RecordedTask } from "../domain/runRecord.ts"
import {
  newTaskNonce,
  parseTaskId,
  taskIdOf,
  taskPollMs,
  type TaskRef,
  taskThresholdSeconds,
  taskTtlMs
} from "../domain/tasks.ts"
import type { TaskCallShape } from "../services/TaskCall.ts"
import { declaresTasks, envelopeOf, revisionErrors, tasksExtension } from "./Revision.ts"
import type { LocalAnswer } from "./StdioLines.ts"

type Status = "working" | "input_required" | "completed" | "failed"

/** A question of the run's program, as the task asks it. */
interface Ask {
  readonly key: string
  readonly program: string
  readonly prompt: string
  readonly secret: boolean
  /** What the person did with it: nothing yet, or their answer (or refusal) is on its way. */
  settled: boolean
}

/** What the watcher does next, asked by `tasks/update` or `tasks/cancel`. */
type Request =
  | { readonly _tag: "Cancel" }
  | { readonly _tag: "Answer"; readonly text: string; readonly key: string }
  | { readonly _tag: "Look" }
  /** The person says they typed the answer a form may not carry (a secret) into the pane. */
  | { readonly _tag: "Typed" }

/** One task this instance follows. */
interface Entry {
  readonly id: string
  readonly ref: TaskRef
  task: RecordedTask
  /** The record was read and holds this task: a task ID made up or gone stale is never verified. */
  verified: boolean
  /** When the call that made the run began (its creation, for a task adopted from another instance). */
  readonly began: number
  status: Status
  statusMessage: string | undefined
  updatedAt: number
  result?: CallToolResult
  error?: { readonly code: number; readonly message: string; readonly data?: unknown }
  ask?: Ask | undefined
  /** Keys asked so far: each is asked once. */
  asked: number
  request?: Request | undefined
  /** The program in front in the pane, as the last look at the unfinished run saw it. */
  front?: string | undefined
  /** A cancellation is under way: another one asks nothing more. */
  cancelled: boolean
  /** Wakes the watcher's pause (any request). */
  wake: () => void
  /** Cuts short the watcher's wait for the run's end: a cancellation only (see `watch`). */
  cut: () => void
  watcher?: Fiber.Fiber<void> | undefined
  polled: number
  readonly client: string | undefined
}

/**
 * How long a watcher follows a task nobody polls: a host polls every `taskPollMs`, so a watcher that
 * heard nothing for this long follows a task some other instance answers (after a restart), and stops
 * before it collects the run from under that one.
 */
const idleMs = 10_000

/** The longest one of the watcher's resumes waits for the run's end, in seconds. */
const watchSeconds = 10

/** How long the watcher leaves an unanswered question before looking again, in milliseconds. */
const askPauseMs = 5_000

/** Tasks kept at most: the oldest ended ones go first. */
const maxEntries = 256

/** Tool errors that say nothing final about the run: the watcher looks again. */
const passing = new Set(["TmuxTimedOut", "TmuxAnswerLost", "PaneNotReady", "RunWaitFailed"])

/** Refusals of what a resume was to type (the run ended, the answer does not fit): nothing was typed. */
const notTyped = new Set(["ArgumentProblem", "InputInvalid"])

/** Why a form's answer cannot be typed as one line (run_shell_command's rule for `answer`), or undefined. */
const answerProblem = (text: unknown): string | undefined =>
  typeof text !== "string" || text.length === 0 || text.length > maxAnswer
    ? `the answer must be 1 to ${maxAnswer} characters`
    : controlCharacter.test(text)
    ? "the answer is one line: it may hold no control character (a newline, a tab)"
    : undefined

/** A program's question, as a form asks it: one line of text, typed and then Enter. */
const answerSchema = {
  type: "object",
  properties: {
    answer: {
      type: "string",
      title: "Answer",
      description: "typed into the pane, then Enter (one line)",
      minLength: 1,
      maxLength: maxAnswer
    }
  },
  required: ["answer"]
} as const

/**
 * What a client of 2026-07-28 reads besides: run_shell_command's description and the instructions say
 * how a run becomes a task (a client of 2025-11-25 reads them as before).
 */
export const taskNotes = {
  run_shell_command: " With a host that holds MCP tasks (its call declares io.modelcontextprotocol/tasks), a " +
    `run still going ${taskThresholdSeconds} s after it was typed, or waiting for the keyboard, comes back as a ` +
    "task the host polls to its end and whose questions go to the user: no resume or watch_command needed.",
  instructions: "When your host holds MCP tasks, a run_shell_command still going after " +
    `${taskThresholdSeconds} s comes back as a task, and its end comes to you by itself: work on meanwhile.`
} as const

/** What the server's tools/call handler and transport need of the tasks. @category models */
export interface Tasks {
  /** The task side of a tools/call, when the call may become a task. */
  readonly ticketFor: (name: string, args: unknown, params: unknown) => Ticket | undefined
  /** The task result of a call whose run the ticket attached, or `undefined` when it did not become one. */
  readonly created: (ticket: Ticket, outcome: CallOutcome) => Readonly<Record<string, unknown>> | undefined
  /** Answers `tasks/get`, `tasks/update` and `tasks/cancel`. */
  readonly answer: (request: JSONRPCRequest) => Promise<LocalAnswer>
}

/** A tools/call that may become a task. @category models */
export interface Ticket {
  readonly call: TaskCallShape
  readonly began: number
  readonly client: string | undefined
  /** The run the call attached, once it did. */
  readonly run: () => { readonly paneId: string; readonly runId: string } | undefined
}

type Run = <A, E>(effect: Effect.Effect<A, E>) => Fiber.Fiber<A, E>

/** What the tasks are built from. @category models */
export interface TaskSources {
  readonly registry: Registry["Service"]
  readonly runFork: Run
  /** A call's end as the client reads it (McpServer.ts). */
  readonly resultOf: (exit: Exit.Exit<CallOutcome, ToolNotSelected>) => CallToolResult
  /** How a person attaches to the pinned socket, for a question a form may not carry. */
  readonly attach: string
}

const iso = (ms: number) => new Date(ms).toISOString()

const terminal = (status: Status) => status === "completed" || status === "failed"

/** The last line of output with something on it, shortened for a status message. */
const lastLine = (output: unknown): string | undefined => {
  const lines = typeof output === "string" ? output.split("\n").filter((line) => line.trim() !== "") : []
  const last = lines.at(-1)?.trim()
  return last === undefined ? undefined : [...last].slice(0, 160).join("")
}

const refusal = (code: number, message: string, data?: unknown): LocalAnswer => ({
  error: data === undefined ? { code, message } : { code, message, data }
})

const unknownTask = (taskId: unknown) =>
  refusal(
    -32602,
    `Invalid params: unknown or expired task ${
      typeof taskId === "string" ? JSON.stringify(taskId.slice(0, 80)) : ""
    } (its run's record holds no such task: it ended and was collected elsewhere, its pane closed, or the ID ` +
      "is not one this server made)"
  )

/** The tasks this instance follows, and what it follows them with. */
interface Table {
  readonly sources: TaskSources
  readonly entries: Map<string, Entry>
  /** Adoptions under way, by task ID (see `adoptOnce`). */
  readonly adopting: Map<string, Promise<Entry | undefined>>
}

/** Keeps the table bounded: the oldest ended tasks go first, then the oldest. */
const trim = (t: Table) => {
  if (t.entries.size <= maxEntries) return
  const ordered = [...t.entries.values()].sort((a, b) =>
    Number(terminal(b.status)) - Number(terminal(a.status)) || a.updatedAt - b.updatedAt
  )
  for (const entry of ordered.slice(0, t.entries.size - maxEntries)) {
    if (entry.watcher !== undefined) t.sources.runFork(Fiber.interrupt(entry.watcher))
    t.entries.delete(entry.id)
  }
}

const update = (entry: Entry, status: Status, message: string | undefined) => {
  if (entry.status !== status || entry.statusMessage !== message) entry.updatedAt = Date.now()
  entry.status = status
  entry.statusMessage = message
}

/**
 * The call's result as the task completes with it (a tool error too: the task ran and answered),
 * seconds counted from the call that made the run.
 */
const completed = (t: Table, entry: Entry, outcome: CallOutcome) => {
  const result = t.sources.resultOf(Exit.succeed(outcome))
  const structured = result.structuredContent
  const timed = structured === undefined
    ? undefined
    : { ...structured, elapsed_seconds: Math.round(Date.now() - entry.began) / 1000 }
  entry.result = timed === undefined
    ? result
    : { ...result, structuredContent: timed, content: [{ type: "text", text: JSON.stringify(timed) }] }
  entry.ask = undefined
  update(entry, "completed", undefined)
}

/** The task cannot report: this server failed to follow it (a defect, or the tool is not here). */
const failed = (entry: Entry, message: string) => {
  entry.error = { code: -32603, message }
  entry.ask = undefined
  update(entry, "failed", message)
}

/** A program holds the keyboard: a question for the person, unless this one was put already. */
const blocked = (t: Table, entry: Entry, structured: Readonly<Record<string, unknown>>) => {
  const by = structured.blocked_by as { program: string; kind: string }
  const prompt = lastLine(structured.output) ?? ""
  const same = entry.ask !== undefined && entry.ask.program === by.program && entry.ask.prompt === prompt
  if (by.kind === "pager" || by.kind === "full-screen") {
    entry.ask = undefined
    return update(
      entry,
      "working",
      `${by.program} (${by.kind}) holds the keyboard in pane ${entry.ref.paneId}: quit it there ` +
        `(${t.sources.attach}), or cancel the task`
    )
  }
  if (same && entry.ask!.settled) {
    return update(
      entry,
      "working",
      `${by.program} in pane ${entry.ref.paneId} still waits for input that was not given here: ` +
        `type it there (${t.sources.attach}), or cancel the task`
    )
  }
  if (!same) {
    entry.asked += 1
    entry.ask = {
      key: `question-${entry.asked}`,
      program: by.program,
      prompt,
      secret: by.kind === "secret",
      settled: false
    }
  }
  update(entry, "input_required", `${by.program} in pane ${entry.ref.paneId} asks: ${prompt}`)
}

/** What one of the watcher's resumes found. */
const settle = (t: Table, entry: Entry, exit: Exit.Exit<CallOutcome, ToolNotSelected>, asked: Request | undefined) => {
  if (!entry.verified) return
  if (Exit.isFailure(exit)) {
    return failed(entry, "the server could not follow the run (see its stderr); resume it with run_shell_command")
  }
  // After an answer, the program's next question is a new one, even in the same words (a retry).
  if (asked?._tag === "Answer" || asked?._tag === "Typed") entry.ask = undefined
  const outcome = exit.value
  if (outcome._tag === "Failure") {
    const tag = outcome.error._tag
    // A C-c or an answer the pane did not take (it ended, a mode, a guard): nothing was typed; look again.
    if ((asked?._tag === "Cancel" || asked?._tag === "Answer") && (notTyped.has(tag) || passing.has(tag))) {
      entry.cancelled = false
      entry.request = { _tag: "Look" }
      return update(entry, "working", `not typed: ${outcome.error.message}`)
    }
    if (passing.has(tag)) return update(entry, entry.status, `could not read the run just now: ${tag}`)
    return completed(t, entry, outcome)
  }
  const structured = outcome.structured
  // A C-c the program did not stop at: the task goes on, and another cancellation sends another.
  if (asked?._tag === "Cancel") entry.cancelled = false
  if (structured.blocked_by !== undefined) return blocked(t, entry, structured)
  if (structured.timed_out === true) {
    entry.ask = undefined
    const line = lastLine(structured.output)
    const front = entry.front === undefined ? "" : ` (${entry.front} in front in ${entry.ref.paneId})`
    return update(entry, "working", `${line === undefined ? "running" : `running: ${line}`}${front}`)
  }
  completed(t, entry, outcome)
}

/** The resume the watcher calls next, or the pause before it. */
const nextCall = (entry: Entry): { readonly args?: Record<string, unknown>; readonly pauseMs?: number } => {
  const base = { pane_id: entry.ref.paneId, resume: entry.ref.runId, whole_output: true }
  const request = entry.request
  if (request?._tag === "Cancel") return { args: { ...base, interrupt: true, timeout: 10 } }
  if (request?._tag === "Answer") return { args: { ...base, answer: request.text, timeout: 2 } }
  if (request?._tag === "Look" || request?._tag === "Typed") return { args: { ...base, timeout: 2 } }
  // A question waits for the person; one settled elsewhere is looked at now and then.
  if (entry.ask !== undefined || entry.status !== "working" || entry.statusMessage?.includes("holds the keyboard")) {
    return { pauseMs: askPauseMs }
  }
  // Never past the watcher's idle limit: a wait for the end outlasting it would collect the run unpolled.
  const idleLeft = (entry.polled + idleMs - Date.now()) / 1000
  return { args: { ...base, timeout: Math.max(0.5, Math.min(watchSeconds, idleLeft)) } }
}

/** One resume through the registry, for the task: until verified, its record must hold the task's nonce. */
const resume = (t: Table, entry: Entry, args: Record<string, unknown>) =>
  t.sources.registry.call("run_shell_command", args, {
    clientId: entry.client,
    recorded: { task: `${entry.ref.paneId} ${entry.ref.runId}` },
    task: {
      // Checked once: a run's record keeps the task it was typed with.
      task: entry.verified ? undefined : entry.task,
      background: true,
      front: (program) => void (entry.front = program),
      attached: () => undefined,
      found: (task) => {
        if (task === undefined) return
        entry.task = task
        entry.verified = true
      }
    }
  }).pipe(Effect.exit)

/** A promise `entry` resolves through `set` (its wake or its cut), made before anything can call it. */
const signal = (set: (resolve: () => void) => void) =>
  new Promise<void>((resolve) => {
    set(resolve)
  })

/**
 * Follows the task until it ends, or nobody asked about it for `idleMs`. A request wakes a pause;
 * only a cancellation cuts short a wait for the run's end (interrupting a resume: one that had
 * already seen the end could collect the run and lose its answer, a window of milliseconds that
 * a C-c is worth and an answer is not: answers come while the watcher pauses on the question).
 */
const watch = (t: Table, entry: Entry) =>
  Effect.gen(function*() {
    while (!terminal(entry.status) && Date.now() - entry.polled < idleMs) {
      const woken = signal((resolve) => (entry.wake = resolve))
      const cut = signal((resolve) => (entry.cut = resolve))
      const next = nextCall(entry)
      if (next.args === undefined) {
        yield* Effect.race(Effect.promise(() => woken), Effect.sleep(next.pauseMs ?? askPauseMs))
        entry.request ??= { _tag: "Look" }
        continue
      }
      const asked = entry.request
      entry.request = undefined
      // An answer to a question that is no longer the one asked is not typed.
      if (asked?._tag === "Answer" && asked.key !== entry.ask?.key) continue
      const exit = asked === undefined
        ? yield* Effect.race(resume(t, entry, next.args), Effect.as(Effect.promise(() => cut), undefined))
        : yield* resume(t, entry, next.args)
      if (exit !== undefined) settle(t, entry, exit, asked)
    }
  }).pipe(Effect.ensuring(Effect.sync(() => void (entry.watcher = undefined))))

const follow = (t: Table, entry: Entry) => {
  entry.polled = Date.now()
  if (entry.watcher === undefined && !terminal(entry.status)) {
    entry.watcher = t.sources.runFork(watch(t, entry)) as Fiber.Fiber<void>
  }
}

/** The task as `tasks/get` and the creating call show it. */
const view = (entry: Entry) => ({
  taskId: entry.id,
  status: entry.status,
  ...(entry.statusMessage === undefined ? {} : { statusMessage: entry.statusMessage }),
  createdAt: iso(entry.task.created),
  lastUpdatedAt: iso(entry.updatedAt),
  ttlMs: entry.task.ttlMs,
  pollIntervalMs: taskPollMs
})

/** The questions outstanding: one, for the program holding the keyboard. */
const inputRequests = (t: Table, entry: Entry) => {
  const ask = entry.ask
  if (ask === undefined || entry.status !== "input_required") return {}
  const message = ask.secret
    ? `${ask.program} in pane ${entry.ref.paneId} asks for a secret (${ask.prompt}). A form does not ` +
      `carry secrets: type it in the pane yourself (attach with: ${t.sources.attach}), then accept here.`
    : `${ask.program} in pane ${entry.ref.paneId} asks: ${ask.prompt}`
  const requestedSchema = ask.secret ? { type: "object", properties: {} } : answerSchema
  return {
    inputRequests: {
      [ask.key]: { method: "elicitation/create", params: { mode: "form", message, requestedSchema } }
    }
  }
}

const detailed = (t: Table, entry: Entry) => ({
  ...view(entry),
  ...(entry.status === "completed" && entry.result !== undefined
    ? { result: { ...entry.result, resultType: "complete" } }
    : {}),
  ...(entry.status === "failed" && entry.error !== undefined ? { error: entry.error } : {}),
  ...inputRequests(t, entry)
})

const newEntry = (ref: TaskRef, task: RecordedTask, began: number, client: string | undefined): Entry => ({
  id: taskIdOf(ref),
  ref,
  task,
  verified: false,
  began,
  status: "working",
  statusMessage: undefined,
  updatedAt: Date.now(),
  asked: 0,
  cancelled: false,
  wake: () => undefined,
  cut: () => undefined,
  polled: Date.now(),
  client
})

/** A task this instance has not followed: its record is read (by a short resume) before anything is said. */
const adopt = async (t: Table, ref: TaskRef, client: string | undefined): Promise<Entry | undefined> => {
  const entry = newEntry(ref, { nonce: ref.nonce, created: Date.now(), ttlMs: taskTtlMs }, Date.now(), client)
  const exit = await new Promise<Exit.Exit<Exit.Exit<CallOutcome, ToolNotSelected>>>((resolve) =>
    t.sources.runFork(resume(t, entry, { pane_id: ref.paneId, resume: ref.runId, whole_output: true, timeout: 0.5 }))
      .addObserver(resolve)
  )
  if (!entry.verified || Exit.isFailure(exit)) return undefined
  settle(t, entry, exit.value, undefined)
  t.entries.set(entry.id, entry)
  trim(t)
  return entry
}

/** Two polls of a task this instance does not follow yet share one adoption (one resume). */
const adoptOnce = (t: Table, taskId: string, ref: TaskRef, client: string | undefined) => {
  const adoption = t.adopting.get(taskId) ?? adopt(t, ref, client).finally(() => t.adopting.delete(taskId))
  t.adopting.set(taskId, adoption)
  return adoption
}

const known = async (t: Table, taskId: unknown, client: string | undefined): Promise<Entry | undefined> => {
  if (typeof taskId !== "string") return undefined
  const ref = parseTaskId(taskId)
  if (ref === undefined) return undefined
  const entry = t.entries.get(taskId) ?? await adoptOnce(t, taskId, ref, client)
  if (entry === undefined) return undefined
  if (Date.now() > entry.task.created + entry.task.ttlMs) {
    t.entries.delete(taskId)
    return undefined
  }
  return entry
}

/** A `tasks/update`: the person's answer to the question outstanding (others are ignored). */
const respond = (t: Table, entry: Entry, responses: unknown) => {
  const ask = entry.ask
  const response = ask === undefined || ask.settled || typeof responses !== "object" || responses === null
    ? undefined
    : (responses as Record<string, unknown>)[ask.key] as { action?: unknown; content?: unknown } | undefined
  if (ask === undefined || response === undefined) return
  const text = (response.content as { answer?: unknown } | undefined)?.answer
  const problem = response.action === "accept" && !ask.secret ? answerProblem(text) : undefined
  if (problem !== undefined) {
    // Asked again, under a new key (a key is answered once), saying why.
    entry.asked += 1
    entry.ask = { ...ask, key: `question-${entry.asked}` }
    return update(
      entry,
      "input_required",
      `${problem}; ${ask.program} in pane ${entry.ref.paneId} asks: ${ask.prompt}`
    )
  }
  ask.settled = true
  if (response.action === "accept" && ask.secret) entry.request = { _tag: "Typed" }
  else if (response.action === "accept") entry.request = { _tag: "Answer", text: text as string, key: ask.key }
  else {
    update(
      entry,
      "working",
      `the question in pane ${entry.ref.paneId} was not answered here: type the answer there (${t.sources.attach}), ` +
        "or cancel the task"
    )
  }
  entry.wake()
}

const answerRequest = async (t: Table, request: JSONRPCRequest): Promise<LocalAnswer> => {
  if (!declaresTasks(request.params)) {
    return refusal(
      revisionErrors.missingCapability,
      `${request.method} needs the ${tasksExtension} extension declared in this request's client capabilities`,
      { requiredCapabilities: { extensions: { [tasksExtension]: {} } } }
    )
  }
  const params = (request.params ?? {}) as Record<string, unknown>
  if (typeof params.taskId !== "string") {
    return refusal(-32602, `Invalid params: ${request.method} takes taskId, the ID of a task this server made`)
  }
  const entry = await known(t, params.taskId, envelopeOf(request.params).client)
  if (entry === undefined) return unknownTask(params.taskId)
  follow(t, entry)
  if (request.method === "tasks/update") respond(t, entry, params.inputResponses)
  if (request.method === "tasks/cancel" && !terminal(entry.status) && !entry.cancelled) {
    entry.cancelled = true
    entry.request = { _tag: "Cancel" }
    entry.wake()
    entry.cut()
  }
  return { result: request.method === "tasks/get" ? detailed(t, entry) : {} }
}

const ticketFor = (name: string, args: unknown, params: unknown): Ticket | undefined => {
  const input = typeof args === "object" && args !== null ? args as Record<string, unknown> : {}
  // A run on a hub's host is that host's: its record is not in this socket's tmux.
  if (name !== "run_shell_command" || typeof input.command !== "string" || "host" in input) return undefined
  if (!declaresTasks(params)) return undefined
  let run: { readonly paneId: string; readonly runId: string } | undefined
  const task = { nonce: newTaskNonce(), created: Date.now(), ttlMs: taskTtlMs }
  return {
    call: {
      task,
      threshold: taskThresholdSeconds,
      attached: (runId) => void (run = { paneId: String(input.pane_id), runId }),
      found: () => undefined
    },
    began: Date.now(),
    client: envelopeOf(params).client,
    run: () => run
  }
}

const created = (t: Table, ticket: Ticket, outcome: CallOutcome) => {
  const run = ticket.run()
  const task = ticket.call.task
  if (run === undefined || task === undefined || outcome._tag !== "Success") return undefined
  const ref = { paneId: run.paneId, runId: run.runId, nonce: task.nonce } as TaskRef
  const entry = newEntry(ref, task, ticket.began, ticket.client)
  entry.verified = true
  settle(t, entry, Exit.succeed(outcome), undefined)
  t.entries.set(entry.id, entry)
  trim(t)
  follow(t, entry)
  return { resultType: "task", ...view(entry) }
}

/** The tasks of this server. @category constructors */
export const makeTasks = (sources: TaskSources): Tasks => {
  const t: Table = { sources, entries: new Map(), adopting: new Map() }
  return {
    ticketFor,
    created: (ticket, outcome) => created(t, ticket, outcome),
    answer: (request) => answerRequest(t, request)
  }
}
