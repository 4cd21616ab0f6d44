/**
 * The shape of one manifest row: every capability fact about one tool, all fields required,
 * so that a row with an omission fails to compile.
 */
import type { OpenerKey, OutputClass, ProcessReach, SinkKind, TmuxEffect, Toolset } from "./vocabulary.ts"

/** The four MCP behavioural hints, always written out. */
export interface Hints {
  readonly readOnly: boolean
  readonly destructive: boolean
  readonly idempotent: boolean
  readonly openWorld: boolean
}

/** One tool's capability record. @category models */
export interface ManifestRow {
  readonly name: string
  readonly title: string
  readonly toolset: Toolset
  readonly effect: ReadonlyArray<TmuxEffect>
  readonly reach: ProcessReach
  readonly output: ReadonlyArray<OutputClass>
  readonly mayExposeSecrets: boolean
  readonly mayReturnUntrustedContent: boolean
  readonly hints: Hints
  readonly opener: OpenerKey
  readonly selfBounded: boolean
  readonly batchEligible: boolean
  readonly amplifiesFutureInput: boolean
  readonly mayTriggerConfiguredHooks: boolean
  /** Where each parameter's value lands; `defineTool` requires exactly the tool's input fields. */
  readonly sinks: Readonly<Record<string, SinkKind>>
}
