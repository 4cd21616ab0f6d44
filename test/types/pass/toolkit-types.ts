// The toolkit's one cast (src/toolkit.ts) pinned: every tool's result is its definition's output, its
// failure is CallError, which is what the registry's calls fail with, and makeToolkit gives that toolkit.
import type { Tool, Toolkit } from "effect/ai"
import type * as Effect from "effect/Effect"
import type { CallOutcome } from "../../../src/dispatch/Registry.ts"
import type { ToolName } from "../../../src/manifest/index.ts"
import type { CallError } from "../../../src/services/errors.ts"
import type { makeToolkit, TmuxTools } from "../../../src/toolkit.ts"
import type { registry } from "../../../src/tools/index.ts"

type Equals<A, B> = (<T>() => T extends A ? 1 : 2) extends (<T>() => T extends B ? 1 : 2) ? true : false
type Output<K extends ToolName> = NonNullable<(typeof registry)[K]["types"]>["output"]
type CallFailure = Extract<CallOutcome, { readonly _tag: "Failure" }>["error"]

type Pins = {
  readonly [K in ToolName]: {
    readonly result: Equals<Tool.Success<TmuxTools[K]>, Output<K>>
    readonly failure: Equals<Tool.Failure<TmuxTools[K]>, CallError>
  }
}
/** True only when every tool's pins hold. */
type EveryPin = Pins[ToolName] extends { readonly result: true; readonly failure: true } ? true : false

export const everyTool: EveryPin = true
export const callsFailAsTools: Equals<CallFailure, CallError> = true
export const toolkitType: Equals<Effect.Success<typeof makeToolkit>["toolkit"], Toolkit.Toolkit<TmuxTools>> = true
