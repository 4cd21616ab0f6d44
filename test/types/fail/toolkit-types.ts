import type { Tool } from "effect/ai"
import type { ToolName } from "../../../src/manifest/index.ts"
import type { CallError, RunIncomplete } from "../../../src/services/errors.ts"
import type { TmuxTools } from "../../../src/toolkit.ts"
import type { registry } from "../../../src/tools/index.ts"

type Equals<A, B> = (<T>() => T extends A ? 1 : 2) extends (<T>() => T extends B ? 1 : 2) ? true : false
type Output<K extends ToolName> = NonNullable<(typeof registry)[K]["types"]>["output"]

// A tool's result drifted: capture_pane's toolkit entry said to return list_sessions's output.
// expect-error: TS2322 Type 'true' is not assignable to type 'false'
export const result: Equals<Tool.Success<TmuxTools["capture_pane"]>, Output<"list_sessions">> = true
// A tool's failure drifted: the toolkit's failure without one of CallError's members.
// expect-error: TS2322 Type 'true' is not assignable to type 'false'
export const failure: Equals<Tool.Failure<TmuxTools["capture_pane"]>, Exclude<CallError, RunIncomplete>> = true
