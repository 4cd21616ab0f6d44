/**
 * The shapes of a run as the machine (domain/runMachine.ts) and its command lists
 * (domain/runCommands.ts) both take them: written once, as Schemas, with their types.
 */
import * as Schema from "effect/Schema"
import * as SchemaTransformation from "effect/SchemaTransformation"

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

/**
 * The head of every read of a run (programs/runHead.ts `headFormat`): the run's records, the pane's
 * claim, then the pane's position and screen. @category schemas
 */
export const Head = Schema.Struct({
  /** The run's end record (its status, written by its trailer), empty while it runs. */
  endRecord: Schema.String,
  /** The run's start mark, written when its command begins (domain/runPositions.ts). */
  mark: Schema.String,
  /** Where the run was typed, written by its typing list. */
  typed: Schema.String,
  /** The run's record as tmux holds it (domain/runRecord.ts); empty once the run is collected. */
  runRecord: Schema.String,
  /** The pane's last three collected-run marks, of whichever runs, joined by `/` (runRecord.ts `markOf`). */
  collected: Schema.String,
  /** The run that holds the pane (its claim), empty when none does. */
  claim: Schema.String,
  history: Schema.Number,
  cursorY: Schema.Number,
  cursorX: Schema.Number,
  alternate: Schema.Boolean,
  dead: Schema.Boolean,
  /** 0 when tmux answered for a pane that closed (3.3a expands its fields empty). */
  panePid: Schema.Number,
  program: Schema.String
})
export type Head = typeof Head.Type

/** A number field of the head; an empty one (a pane that closed) reads 0. */
const count = (field: string | undefined): number => Number(field ?? "0")

/**
 * The head as tmux prints it, `|` between its fields, decoded into its fields. The last field, the
 * pane's program, may itself hold `|`: it is the rest of the line. @category schemas
 */
export const HeadLine = Schema.String.pipe(Schema.decodeTo(
  Head,
  SchemaTransformation.transform({
    decode: (line: string): Head => {
      const [endRecord = "", mark = "", typed = "", runRecord = "", collected = "", claim = "", ...rest] = line
        .split("|")
      const [history, cursorY, cursorX, alternate, dead, panePid, ...program] = rest
      return {
        endRecord,
        mark,
        typed,
        runRecord,
        collected,
        claim,
        history: count(history),
        cursorY: count(cursorY),
        cursorX: count(cursorX),
        alternate: alternate === "1",
        dead: dead === "1",
        panePid: count(panePid),
        program: program.join("|")
      }
    },
    encode: (head: Head): string =>
      [
        head.endRecord,
        head.mark,
        head.typed,
        head.runRecord,
        head.collected,
        head.claim,
        head.history,
        head.cursorY,
        head.cursorX,
        head.alternate ? "1" : "0",
        head.dead ? "1" : "0",
        head.panePid,
        head.program
      ].join("|")
  })
))
