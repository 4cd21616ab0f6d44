/** send_keys_batch: an ordered, bounded list of sends in one call. */
import * as Effect from "effect/Effect"
import * as Schema from "effect/Schema"
import { PaneId } from "../../domain/ids.ts"
import { manifest } from "../../manifest/index.ts"
import { inputTargets, invocations, keysFields, sendCommands, targetFields } from "../../programs/keys.ts"
import { idVariable } from "../../programs/variables.ts"
import { PaneInput } from "../../services/Tmux.ts"
import { defineTool } from "../define.ts"

/** The most sends in one batch. */
export const maxOperations = 32

/** @category tools */
export const send_keys_batch = defineTool(manifest.send_keys_batch, {
  description: "Up to 32 inputs in order (C-c, a line, Enter ...); all panes " +
    "are checked first, so a missing one sends nothing. No waits between.",
  input: Schema.Struct({
    operations: Schema.Array(Schema.Struct({ pane_id: PaneId, ...keysFields })).check(
      Schema.isMinLength(1),
      Schema.isMaxLength(maxOperations)
    ).annotate({ description: "sent in order" })
  }),
  output: Schema.Struct({
    operations: Schema.Array(
      Schema.Struct({
        index: Schema.Int.annotate({ description: "the send's position, from 0" }),
        pane_id: idVariable("pane_id"),
        ...targetFields
      })
    ).annotate({ description: "one per send, in order" }),
    targets: Schema.Array(Schema.String).annotate({ description: "every pane some input reached" })
  }),
  run: (input) =>
    Effect.gen(function*() {
      const panes = [...new Set(input.operations.map((operation) => operation.pane_id))]
      const reach = new Map<string, { readonly targets: ReadonlyArray<string>; readonly synchronized: boolean }>()
      for (const pane of panes) reach.set(pane, yield* inputTargets(pane))
      const tmux = yield* PaneInput
      // tmux refuses a client message over 16 KiB: sends go in invocations under that, sized first.
      for (
        const group of invocations(input.operations.flatMap((operation) => sendCommands(operation.pane_id, operation)))
      ) yield* tmux.run(group)
      const operations = input.operations.map((operation, index) => ({
        index,
        pane_id: operation.pane_id,
        ...reach.get(operation.pane_id)!
      }))
      return { operations, targets: [...new Set(operations.flatMap((operation) => operation.targets))] }
    })
})
