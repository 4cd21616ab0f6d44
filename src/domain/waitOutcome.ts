/**
 * What `libtmux-mcp wait` can find, each with its own exit code and one line: the vocabulary the
 * command (src/wait.ts), `--help` and docs/waiting-from-a-host.md share. The watcher never decides
 * a run: `resume` answers as it would without it.
 */
import type { BlockKind } from "./keyboard.ts"
import type { RunEnding } from "./runRecord.ts"
import { sshLostCode } from "./ssh.ts"

/** How a wait ended. @category models */
export type WaitOutcome =
  /** The run recorded its end: its exit status. */
  | { readonly _tag: "Ended"; readonly runId: string; readonly status: number }
  /** The run is over without a status report: interrupted (C-c), or its command ended or replaced the shell. */
  | { readonly _tag: "EndedUnreported"; readonly runId: string; readonly how: string }
  | { readonly _tag: "Blocked"; readonly runId: string; readonly by: string; readonly kind: BlockKind }
  | { readonly _tag: "TimedOut"; readonly runId: string; readonly seconds: number }
  | { readonly _tag: "Unknown"; readonly runId: string; readonly paneId: string }
  /** Another call collected the run: its status where the pane's mark still holds it. */
  | {
    readonly _tag: "Collected"
    readonly runId: string
    readonly status: number | null | undefined
    readonly ended: RunEnding | undefined
  }
  | { readonly _tag: "PaneGone"; readonly runId: string; readonly paneId: string; readonly why: string }
  | { readonly _tag: "ServerGone"; readonly runId: string; readonly socket: string }

/** The exit code of each outcome; 1 is a refusal or failure of the command itself. */
export const waitExitCodes = {
  Ended: 0,
  EndedUnreported: 3,
  Blocked: 4,
  TimedOut: 5,
  Unknown: 6,
  Collected: 7,
  PaneGone: 8,
  ServerGone: 9
} as const satisfies Record<WaitOutcome["_tag"], number>

/** The exit code of a refused or failed `wait` (bad arguments, a socket it refuses, tmux unusable). */
export const waitFailedCode = 1

/** The exit code of an outcome. */
export const waitExitCode = (outcome: WaitOutcome): number => waitExitCodes[outcome._tag]

/** The one line printed for an outcome. */
export const waitLine = (outcome: WaitOutcome): string => {
  switch (outcome._tag) {
    case "Ended":
      return `run ${outcome.runId} ended: exit status ${outcome.status}`
    case "EndedUnreported":
      return `run ${outcome.runId} ended without a status report: ${outcome.how}`
    case "Blocked":
      return `run ${outcome.runId} is blocked: ${outcome.by} holds the keyboard (${outcome.kind})`
    case "TimedOut":
      return `run ${outcome.runId} is still running after ${outcome.seconds} s`
    case "Unknown":
      return `run ${outcome.runId} is unknown on pane ${outcome.paneId}: no record of it and no mark of its collection`
    case "Collected":
      return `run ${outcome.runId} was already collected${
        outcome.ended === undefined
          ? ""
          : outcome.ended === "reported"
          ? `: exit status ${outcome.status}`
          : outcome.ended === "shell-exited"
          ? `: its command ended the shell (exit status ${outcome.status ?? "unknown"})`
          : ": it ended without a status report"
      }`
    case "PaneGone":
      return `run ${outcome.runId}: pane ${outcome.paneId} is gone (${outcome.why})`
    case "ServerGone":
      return `run ${outcome.runId}: the tmux server on ${outcome.socket} is gone`
  }
}

/** The codes as `--help` and the docs list them. */
export const waitCodeLines: ReadonlyArray<readonly [number, string]> = [
  [waitExitCodes.Ended, "the run ended; the line gives its exit status"],
  [waitFailedCode, "refused or failed: bad arguments, a socket the server would refuse, tmux unusable"],
  [waitExitCodes.EndedUnreported, "the run is over without a status report (C-c, or its command ended the shell)"],
  [waitExitCodes.Blocked, "a program of the run holds the keyboard; the line names it and its kind"],
  [waitExitCodes.TimedOut, "--timeout passed; the run is still going"],
  [waitExitCodes.Unknown, "no such run on the pane (no record, no mark of its collection)"],
  [waitExitCodes.Collected, "another call already collected the run (its status, where the pane's mark holds it)"],
  [waitExitCodes.PaneGone, "the pane is gone (closed, respawned, or its process exited)"],
  [waitExitCodes.ServerGone, "the tmux server on the socket is gone"],
  [sshLostCode, "(a watch_command through ssh) ssh lost the link or could not connect: run the same command again"]
]
