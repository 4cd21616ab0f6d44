/**
 * The shapes of a run as the machine (domain/runMachine.ts) and its command lists
 * (domain/runCommands.ts) both take them: written once, as Schemas, with their types.
 */
import * as Schema from "effect/Schema"

/** What the machine needs of a run: its ID, its pane, and the pane's `remain-on-exit` it replaced. @category schemas */
export const RunRef = Schema.Struct({
  id: Schema.String,
  paneId: Schema.String,
  remainOnExit: Schema.optionalKey(Schema.String)
})
export type RunRef = typeof RunRef.Type

/** How a collected run ended. @category schemas */
export const Ending = Schema.Literals(["reported", "unreported", "shell-exited"])

/** What collecting leaves in the pane's mark besides the run's ID (runRecord.ts `CollectedMark`). @category schemas */
export const Collection = Schema.Struct({
  status: Schema.NullOr(Schema.Number),
  ended: Ending,
  collector: Schema.String,
  at: Schema.Number
})
export type Collection = typeof Collection.Type

/**
 * What typing a run needs besides the run: the look it types from (the typing generation it was
 * looked at in: it takes the next; domain/typingGuard.ts `TypingView`), the trailer's template and
 * the start mark's when the run marks where its output starts, its record encoded
 * (domain/runRecord.ts), its paste buffer's tag, and whether the pane is kept when its shell exits
 * (an in-shell run: `remain-on-exit` on while it runs).
 * @category schemas
 */
export const Typing = Schema.Struct({
  generation: Schema.Number,
  view: Schema.Struct({
    panePid: Schema.Number,
    cursorX: Schema.Number,
    width: Schema.Number,
    height: Schema.Number,
    generation: Schema.String
  }),
  templates: Schema.Struct({ end: Schema.String, mark: Schema.optionalKey(Schema.String) }),
  record: Schema.String,
  bufferTag: Schema.String,
  keepPane: Schema.Boolean
})
export type Typing = typeof Typing.Type
