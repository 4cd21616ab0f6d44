/**
 * tmux's IDs of sessions (`$1`), windows (`@2`) and panes (`%3`), as branded strings: one kind
 * cannot stand for another, and a string becomes one only through its check (a decoded input, a
 * row tmux printed, a run record read back).
 */
import * as Schema from "effect/Schema"
import { paneIdPattern, sessionIdPattern, windowIdPattern } from "./names.ts"

/**
 * An ID schema: its description shows the form, so the advertised schema carries no pattern
 * saying it again (a filter and a brand add nothing to the JSON Schema); decoding still checks it.
 */
const checkedId = (what: string, pattern: RegExp, example: string) =>
  Schema.String.annotate({ description: `e.g. ${example}` }).check(
    Schema.makeFilter((id: string) => pattern.test(id) || `expected a ${what} ID such as ${example}`, {
      // Property tests draw IDs from the schema; a hint, with no effect on decoding or the JSON Schema.
      arbitraryConstraint: { patterns: [{ source: pattern.source, flags: "" }] }
    })
  )

/** @category schemas */
export const SessionId = checkedId("session", sessionIdPattern, "$1").pipe(Schema.brand("SessionId"))
/** A session's ID, such as `$1`. @category models */
export type SessionId = typeof SessionId.Type
/** @category schemas */
export const WindowId = checkedId("window", windowIdPattern, "@2").pipe(Schema.brand("WindowId"))
/** A window's ID, such as `@2`. @category models */
export type WindowId = typeof WindowId.Type
/** @category schemas */
export const PaneId = checkedId("pane", paneIdPattern, "%3").pipe(Schema.brand("PaneId"))
/** A pane's ID, such as `%3`. @category models */
export type PaneId = typeof PaneId.Type

/**
 * The brands alone, for IDs tmux printed (read as checked rows, see TmuxReads.parseRows): the
 * output schemas, whose descriptions a check would drop from the JSON Schema.
 * @category schemas
 */
export const printedIds = {
  "session-id": Schema.String.pipe(Schema.brand("SessionId")),
  "window-id": Schema.String.pipe(Schema.brand("WindowId")),
  "pane-id": Schema.String.pipe(Schema.brand("PaneId"))
} as const

/** The kinds of ID in what tmux prints. @category models */
export type IdKind = keyof typeof printedIds

/** The form of each kind of ID. */
export const idPatterns: Readonly<Record<IdKind, RegExp>> = {
  "session-id": sessionIdPattern,
  "window-id": windowIdPattern,
  "pane-id": paneIdPattern
}

/** Whether a string is a pane ID, such as one found among a call's arguments. */
export const isPaneId = (id: string): id is PaneId => paneIdPattern.test(id)
