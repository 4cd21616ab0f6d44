/**
 * The shape of one manifest row: every capability fact about one tool, all fields required,
 * so that a row with an omission fails to compile.
 *
 * A row is one variant of a union discriminated by toolset (and, in execute, by reach), so that
 * its toolset, effect, reach, hints, opener and sink kinds must agree: an inspect row with a
 * deleting effect, a teardown row that is not destructive, or a spawn row with the manage opener
 * does not compile. The runtime tests still check the emitted data.
 */
import type { OutputClass, SinkKind } from "./vocabulary.ts"

/** The four MCP behavioural hints, always written out. */
export interface Hints {
  readonly readOnly: boolean
  readonly destructive: boolean
  readonly idempotent: boolean
  readonly openWorld: boolean
}

/** Sinks that carry no executable or format-bearing input: all a tool whose opener says so may have. */
export type DataSink = Exclude<SinkKind, "pane-input" | "shell-command" | "process-argv" | "tmux-format">

/** The columns every variant has alike. */
interface RowColumns<Sink extends SinkKind> {
  readonly name: string
  /**
   * Who calls the tool: the model, or only the pane view (an MCP App) through its host. An app tool is
   * listed only to a client that declares the UI extension, and hidden from its model (wire/PaneApp.ts).
   */
  readonly audience: "model" | "app"
  readonly title: string
  readonly output: ReadonlyArray<OutputClass>
  readonly mayExposeSecrets: boolean
  readonly mayReturnUntrustedContent: boolean
  readonly selfBounded: boolean
  readonly batchEligible: boolean
  /** Whether the tool calls other tools (each as its own audited call, within its own authority). */
  readonly callsTools: boolean
  readonly amplifiesFutureInput: boolean
  readonly mayTriggerConfiguredHooks: boolean
  /** Where each parameter's value lands; `defineTool` requires exactly the tool's input fields. */
  readonly sinks: Readonly<Record<string, Sink>>
}

/** inspect: observes only, reaches no process, readOnly and not destructive, an inspect opener. */
export interface InspectRow extends RowColumns<DataSink> {
  readonly toolset: "inspect"
  readonly effect: readonly ["observe"]
  readonly reach: "none"
  readonly hints: Hints & { readonly readOnly: true; readonly destructive: false }
  readonly opener: "inspect-metadata" | "inspect-pane-output" | "inspect-environment" | "inspect-configuration"
}

/** manage: changes tmux state, reaches no process, every update non-additive (destructive). */
export interface ManageRow extends RowColumns<DataSink> {
  readonly toolset: "manage"
  readonly effect: readonly ["change"]
  readonly reach: "none"
  readonly hints: Hints & { readonly readOnly: false; readonly destructive: true }
  readonly opener: "manage"
}

/** Pane-input and pane-command tools: destructive, not idempotent, open-world. */
type DrivingHints = Hints & {
  readonly readOnly: false
  readonly destructive: true
  readonly idempotent: false
  readonly openWorld: true
}

/** execute, configured-process: additive creation with no command payload and no format sink. */
export interface SpawnRow extends RowColumns<DataSink> {
  readonly toolset: "execute"
  readonly effect: readonly ["change"]
  readonly reach: "configured-process"
  readonly hints: Hints & { readonly readOnly: false; readonly destructive: false }
  readonly opener: "spawn"
}

/** execute, pane-input: client keys or text reach a pane's program. */
export interface PaneInputRow extends RowColumns<DataSink | "pane-input"> {
  readonly toolset: "execute"
  readonly effect: readonly ["change"] | readonly ["change", "delete"]
  readonly reach: "pane-input"
  readonly hints: DrivingHints
  readonly opener: "pane-input"
}

/** execute, pane-command: an authored shell command runs in a pane. */
export interface PaneCommandRow extends RowColumns<SinkKind> {
  readonly toolset: "execute"
  readonly effect: readonly ["change"] | readonly ["change", "delete"]
  readonly reach: "pane-command"
  readonly hints: DrivingHints
  readonly opener: "pane-command"
}

/** execute with reach none: only an input amplifier belongs here (set_synchronize_panes). */
export interface AmplifierRow extends RowColumns<DataSink> {
  readonly toolset: "execute"
  readonly effect: readonly ["change"]
  readonly reach: "none"
  readonly amplifiesFutureInput: true
  readonly hints: Hints & { readonly readOnly: false; readonly destructive: true }
  readonly opener: "manage"
}

/** teardown: deletes, reaches no process, destructive and closed-world. */
export interface TeardownRow extends RowColumns<DataSink> {
  readonly toolset: "teardown"
  readonly effect: readonly ["delete"]
  readonly reach: "none"
  readonly hints: Hints & { readonly readOnly: false; readonly destructive: true; readonly openWorld: false }
  readonly opener: "teardown"
}

/** One tool's capability record. @category models */
export type ManifestRow = InspectRow | ManageRow | SpawnRow | PaneInputRow | PaneCommandRow | AmplifierRow | TeardownRow

/** The opener an inspect row must carry: the one for its worst output class. */
type InspectOpenerOf<Output extends ReadonlyArray<OutputClass>> = "terminal-content" extends Output[number] ?
  "inspect-pane-output"
  : "process-environment" extends Output[number] ? "inspect-environment"
  : "configured-command" extends Output[number] ? "inspect-configuration"
  : "inspect-metadata"

/** What a row returning terminal content must say: open-world, may expose secrets, may return untrusted text. */
interface TerminalContentRules {
  readonly hints: { readonly openWorld: true }
  readonly mayExposeSecrets: true
  readonly mayReturnUntrustedContent: true
}

/**
 * The rules that read a row's output column, which a union cannot discriminate on: an inspect row's
 * opener is its worst output class's, and a row that returns terminal content is open-world,
 * secret-bearing and untrusted. A set of rows is assignable to `OutputRules<typeof rows>` only if
 * each row keeps them (`src/manifest/index.ts` checks the manifest).
 */
export type OutputRules<Rows extends Readonly<Record<string, ManifestRow>>> = {
  readonly [K in keyof Rows]:
    & (Rows[K] extends InspectRow ? { readonly opener: InspectOpenerOf<Rows[K]["output"]> } : unknown)
    & ("terminal-content" extends Rows[K]["output"][number] ? TerminalContentRules : unknown)
}
