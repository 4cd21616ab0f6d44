/** search_panes: which panes show a text or pattern, with the matching lines. */
import * as Clock from "effect/Clock"
import * as Effect from "effect/Effect"
import * as Schema from "effect/Schema"
import { maxResultChars, maxTextChars, tailBound } from "../../domain/bounds.ts"
import { cellsOf } from "../../domain/cells.ts"
import { manifest } from "../../manifest/index.ts"
import { uniqueMarker } from "../../programs/formats.ts"
import { emptyWhenNoServer, listPaneRows, type PaneInfo } from "../../programs/hierarchy.ts"
import { optionalSession, sessionTargetFields } from "../../programs/targets.ts"
import { usually } from "../../programs/usual.ts"
import { idVariable, intVariable, stringVariable } from "../../programs/variables.ts"
import type { TmuxError } from "../../services/errors.ts"
import { matchBudgetMs, maxPatternLength, maxProgramSize, Regex } from "../../services/Regex.ts"
import { TmuxObserve } from "../../services/Tmux.ts"
import { defineTool } from "../define.ts"

/** Panes captured per tmux invocation (a client message must stay under 16 KiB). */
const panesPerInvocation = 100

/**
 * The row each joined line of a capture starts on, counted up from the screen's last row (the
 * capture ends there, however much history it reached): a line takes as many rows as its cells
 * fill at the pane's width.
 */
interface Match {
  readonly lines: ReadonlyArray<string>
  readonly rows: ReadonlyArray<number>
  readonly truncated_lines: number
}

/**
 * The matches within the result's size bound (Claude Code keeps a longer result from the model):
 * the last panes go first, then the oldest lines of the one left, then the start of its oldest line.
 */
const fitted = <M extends Match>(matches: ReadonlyArray<M>): ReadonlyArray<M> => {
  const sizes = matches.map((match) => JSON.stringify(match).length + 1)
  let total = sizes.reduce((sum, size) => sum + size, 0)
  let count = matches.length
  while (total > maxTextChars && count > 1) total -= sizes[--count]!
  const kept = matches.slice(0, count)
  const last = kept[0]
  if (total <= maxTextChars || last === undefined) return kept
  // One pane left: what is not its lines is a few hundred characters.
  const bounded = tailBound(last.lines, last.lines.length, Number.MAX_SAFE_INTEGER, maxTextChars - 2_000)
  return [{
    ...last,
    lines: bounded.lines,
    rows: last.rows.slice(last.rows.length - bounded.lines.length),
    truncated_lines: last.truncated_lines + bounded.truncatedLines
  }]
}

export const startRows = (lines: ReadonlyArray<string>, width: number, height: number): ReadonlyArray<number> => {
  const rows = Array.from({ length: lines.length }, () => 0)
  let next = height
  for (let j = lines.length - 1; j >= 0; j--) {
    next -= Math.max(1, Math.ceil(cellsOf(lines[j]!) / Math.max(1, width)))
    rows[j] = next
  }
  return rows
}

/** A tmux failure that says a target is gone: the pane closed, or the server ended with its last pane. */
const targetGone = (error: TmuxError): boolean =>
  error._tag === "ServerNotRunning" ||
  (error._tag === "TmuxCommandFailed" && error.refusal._tag === "TargetMissing" && error.refusal.kind !== "current")

/**
 * Captures a chunk of panes in one invocation, each after a marker line (the texts in pane order).
 * tmux stops a command list at the first pane that is gone: then the panes still there are captured
 * again, and the closed ones named. Each retry drops at least one pane, so there are at most as many
 * as panes; a failure with every pane still there is returned as it is.
 */
const captureChunk = (chunk: ReadonlyArray<PaneInfo>, history: number) =>
  Effect.gen(function*() {
    const tmux = yield* TmuxObserve
    const marker = uniqueMarker("search")
    const vanished: Array<string> = []
    let live = chunk
    while (live.length > 0) {
      const captured = yield* Effect.result(tmux.run(live.flatMap((pane) => [
        ["display-message", "-p", "-t", pane.pane_id, marker] as const,
        ["capture-pane", "-p", "-J", "-t", pane.pane_id, ...(history > 0 ? ["-S", String(-history)] : [])] as const
      ])))
      if (captured._tag === "Success") {
        return { live, texts: captured.success.split(`${marker}\n`).slice(1), vanished }
      }
      if (!targetGone(captured.failure)) return yield* Effect.fail(captured.failure)
      const existing = new Set((yield* emptyWhenNoServer(listPaneRows("all"))).map((pane) => pane.pane_id))
      const gone = live.filter((pane) => !existing.has(pane.pane_id))
      if (gone.length === 0) return yield* Effect.fail(captured.failure)
      vanished.push(...gone.map((pane) => pane.pane_id))
      live = live.filter((pane) => existing.has(pane.pane_id))
    }
    return { live, texts: [], vanished }
  })

/** @category tools */
export const search_panes = defineTool(manifest.search_panes, {
  description: "Find a literal (default) or RE2 pattern in every pane, or one session's. Match rows are capture_pane " +
    "start/end values. Searches the screen plus history_lines rows of history (wrapped lines joined), within " +
    "what the pane kept (its history-limit). " +
    `Patterns over ${maxProgramSize} RE2 instructions are refused; matching stops after ${matchBudgetMs / 1000} s.`,
  input: Schema.Struct({
    pattern: Schema.String.check(Schema.isMinLength(1), Schema.isMaxLength(maxPatternLength)).annotate({
      description: "text, or RE2 with regex"
    }),
    regex: Schema.optionalKey(Schema.Boolean.annotate({ description: "RE2 syntax (default false: literal)" })),
    match_case: Schema.optionalKey(Schema.Boolean.annotate({ description: "case-sensitive (default false)" })),
    ...sessionTargetFields,
    history_lines: Schema.optionalKey(
      Schema.Int.check(Schema.isBetween({ minimum: 0, maximum: 10_000 })).annotate({
        description: "rows of history to search too (default 0)"
      })
    ),
    max_panes: Schema.optionalKey(
      Schema.Int.check(Schema.isBetween({ minimum: 1, maximum: 500 })).annotate({
        description: "matching panes kept (default 50)"
      })
    ),
    max_lines_per_pane: Schema.optionalKey(
      Schema.Int.check(Schema.isBetween({ minimum: 1, maximum: 500 })).annotate({
        description: "newest matching lines kept per pane (default 20)"
      })
    )
  }),
  output: Schema.Struct({
    matches: Schema.Array(Schema.Struct({
      pane_id: idVariable("pane_id"),
      session_id: idVariable("session_id"),
      session_name: stringVariable("session_name"),
      window_id: idVariable("window_id"),
      window_index: intVariable("window_index"),
      pane_index: intVariable("pane_index"),
      lines: Schema.Array(Schema.String).annotate({
        description: "the matching lines, oldest first (wrapped lines joined)"
      }),
      rows: Schema.Array(Schema.Int).annotate({
        description: "the row each line starts on, as capture_pane's start and end " +
          "count rows (0 is the top of the screen, negative is history)"
      }),
      truncated_lines: usually(
        Schema.Int.annotate({
          description: "matching lines left out by max_lines_per_pane or the result's size bound (the oldest)"
        }),
        0,
        "none"
      )
    })).annotate({ description: "the matching panes, in tmux's order" }),
    panes_searched: Schema.Int.annotate({ description: "panes searched" }),
    panes_matched: Schema.Int.annotate({ description: "panes that matched, including those left out by max_panes" }),
    truncated_panes: usually(
      Schema.Int.annotate({
        description: `matching panes left out by max_panes or to keep the result within ${maxResultChars} characters`
      }),
      0,
      "none"
    ),
    vanished_panes: usually(
      Schema.Array(Schema.String).annotate({
        description: "IDs of panes that closed during the search (not searched)"
      }),
      [],
      "none"
    )
  }),
  run: (input) =>
    Effect.gen(function*() {
      const regex = yield* Regex
      const matcher = yield* regex.compile([input.pattern], {
        regex: input.regex ?? false,
        matchCase: input.match_case ?? false
      })
      const session = yield* optionalSession(input)
      const panes = yield* emptyWhenNoServer(
        listPaneRows(session === undefined ? "all" : { sessionId: session.session_id })
      )
      const history = input.history_lines ?? 0
      const found: Array<
        { readonly pane: PaneInfo; readonly lines: ReadonlyArray<string>; readonly rows: ReadonlyArray<number> }
      > = []
      const vanished: Array<string> = []
      let matchingMs = 0
      for (let offset = 0; offset < panes.length; offset += panesPerInvocation) {
        const captured = yield* captureChunk(panes.slice(offset, offset + panesPerInvocation), history)
        vanished.push(...captured.vanished)
        const texts = captured.texts
        for (const [i, pane] of captured.live.entries()) {
          const lines = (texts[i] ?? "").split("\n").slice(0, -1)
          const before = yield* Clock.currentTimeMillis
          const firsts = yield* matcher.firstMatches(lines, matchBudgetMs - matchingMs)
          matchingMs += (yield* Clock.currentTimeMillis) - before
          const hits = lines.flatMap((_, j) => firsts[j] === 0 ? [j] : [])
          if (hits.length > 0) {
            const starts = startRows(lines, pane.pane_width, pane.pane_height)
            found.push({ pane, lines: hits.map((j) => lines[j]!), rows: hits.map((j) => starts[j]!) })
          }
        }
      }
      const maxLines = input.max_lines_per_pane ?? 20
      const matches = fitted(
        found.slice(0, input.max_panes ?? 50).map(({ pane, lines, rows }) => ({
          pane_id: pane.pane_id,
          session_id: pane.session_id,
          session_name: pane.session_name,
          window_id: pane.window_id,
          window_index: pane.window_index,
          pane_index: pane.pane_index,
          lines: lines.slice(-maxLines),
          rows: rows.slice(-maxLines),
          truncated_lines: Math.max(0, lines.length - maxLines)
        }))
      )
      return {
        matches,
        panes_searched: panes.length - vanished.length,
        panes_matched: found.length,
        truncated_panes: found.length - matches.length,
        vanished_panes: vanished
      }
    })
})
