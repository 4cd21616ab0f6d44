/**
 * A run served as an MCP task (protocol 2026-07-28, the `io.modelcontextprotocol/tasks` extension):
 * the task's ID and the numbers it is kept and polled by. The ID names the pane and the run, so any
 * server instance on the socket finds the run's record; its nonce, kept in that record
 * (domain/runRecord.ts), makes it unguessable: a run ID alone is six hex digits.
 */
import { randomBytes, timingSafeEqual } from "node:crypto"
import { isPaneId, type PaneId } from "./ids.ts"
import { runIdPattern } from "./protocolNames.ts"

/** Bytes of randomness in a task's nonce: 128 bits. */
const nonceBytes = 16

/** A nonce as a record holds it: 32 hex digits. */
export const taskNoncePattern = new RegExp(`^[0-9a-f]{${nonceBytes * 2}}$`, "u")

/** How long a task is kept from its creation: a day, after which its ID is unknown. */
export const taskTtlMs = 24 * 60 * 60 * 1000

/**
 * How long a tasks-capable call waits for its run before answering with a task, in seconds (or the
 * call's timeout, when shorter): a run that ends sooner answers in the call, as it always did.
 */
export const taskThresholdSeconds = 5

/** How often a client is asked to poll: a run's end reaches it within half a second. */
export const taskPollMs = 500

/** What a task ID names. @category models */
export interface TaskRef {
  readonly paneId: PaneId
  readonly runId: string
  readonly nonce: string
}

/** A fresh nonce. */
export const newTaskNonce = (): string => randomBytes(nonceBytes).toString("hex")

/** The task ID of a run's task: `p<pane number>-<run id>-<nonce>`, printable ASCII only. */
export const taskIdOf = (task: TaskRef): string => `p${task.paneId.slice(1)}-${task.runId}-${task.nonce}`

/** What a task ID names, or `undefined` for a string of another form. */
export const parseTaskId = (taskId: string): TaskRef | undefined => {
  const parts = /^p([0-9]{1,10})-([0-9a-f]+)-([0-9a-f]+)$/u.exec(taskId)
  if (parts === null) return undefined
  const [, pane, runId, nonce] = parts as unknown as [string, string, string, string]
  const paneId = `%${pane}`
  return isPaneId(paneId) && runIdPattern.test(runId) && taskNoncePattern.test(nonce)
    ? { paneId, runId, nonce }
    : undefined
}

/** Whether two nonces are the same, in time that does not depend on where they differ. */
export const sameNonce = (a: string, b: string): boolean =>
  a.length === b.length && timingSafeEqual(Buffer.from(a), Buffer.from(b))
