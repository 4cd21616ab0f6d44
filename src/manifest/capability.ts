/**
 * The public capability record of one tool, as it appears in `tools/list` under
 * `_meta["com.git-pull.libtmux-mcp/capability"]`: toolset, process reach, tmux effect, output
 * classes and hints, in the wire's snake_case. The sink column stays internal.
 */
import type { ManifestRow } from "./row.ts"

/** The `_meta` key of the capability record. */
export const capabilityMetaKey = "com.git-pull.libtmux-mcp/capability"

/** The capability record of a row; the batch's also names the tools it may call (the selection's batch operations). */
export const capabilityRecord = (row: ManifestRow, batchOperations?: ReadonlyArray<string>) => ({
  toolset: row.toolset,
  process_reach: row.reach,
  tmux_effect: row.effect,
  output_classes: row.output,
  may_expose_secrets: row.mayExposeSecrets,
  may_return_untrusted_content: row.mayReturnUntrustedContent,
  amplifies_future_input: row.amplifiesFutureInput,
  may_trigger_configured_hooks: row.mayTriggerConfiguredHooks,
  self_bounded: row.selfBounded,
  hints: {
    readOnlyHint: row.hints.readOnly,
    destructiveHint: row.hints.destructive,
    idempotentHint: row.hints.idempotent,
    openWorldHint: row.hints.openWorld
  },
  ...(row.callsTools && batchOperations !== undefined ? { nestedAuthority: batchOperations } : {})
})
