/**
 * The manifest: one row per tool, the single source from which registration, selection,
 * openers, `_meta`, documentation and the capabilities resource are derived.
 */
import { executeRows } from "./execute.ts"
import { inspectRows } from "./inspect.ts"
import { manageRows } from "./manage.ts"
import type { ManifestRow, OutputRules } from "./row.ts"
import { teardownRows } from "./teardown.ts"
import { type TmuxEffect, type Toolset, toolsets } from "./vocabulary.ts"

export * from "./row.ts"
export * from "./vocabulary.ts"

/** Every tool of the design's inventory, in the inventory's order. @category models */
export const manifest = { ...inspectRows, ...manageRows, ...executeRows, ...teardownRows } as const

/** A tool name of the manifest. @category models */
export type ToolName = keyof typeof manifest
/** The literal row type of one tool: its capability tag. @category models */
export type RowOf<K extends ToolName> = typeof manifest[K]

// Each row's `name` equals its key, and keeps the rules its output column implies; a mismatch fails to compile here.
const _namesMatchKeys: { readonly [K in ToolName]: { readonly name: K } } = manifest
const _outputRules: OutputRules<typeof manifest> = manifest
void _namesMatchKeys
void _outputRules

/** All manifest names in inventory order. @category models */
export const toolNames = Object.keys(manifest) as ReadonlyArray<ToolName>

/** The names offered to a model: every row but the pane view's own (audience "app"), in inventory order. */
export const modelToolNames = toolNames.filter((name) => manifest[name].audience === "model")

/** Looks a name up without widening: `undefined` when it is not a manifest name. */
export const rowFor = (name: string): ManifestRow | undefined =>
  Object.hasOwn(manifest, name) ? manifest[name as ToolName] : undefined

/** The manifest names of one toolset, in inventory order. */
export const toolsOf = (toolset: Toolset): ReadonlyArray<ToolName> =>
  toolNames.filter((name) => manifest[name].toolset === toolset)

/**
 * Whether a row's tool types into a pane's program: reach pane-input, or pane-command typed into
 * the pane's shell. A pane-command row that deletes replaces the pane's process instead
 * (respawn_pane: its kill guard refuses the caller's pane, and synchronize-panes does not carry a
 * respawn). The self-input guard covers exactly these rows, and their descriptions say so.
 */
export const typesIntoPane = (row: ManifestRow): boolean => {
  const effects: ReadonlyArray<TmuxEffect> = row.effect
  return (row.reach === "pane-input" || row.reach === "pane-command") && !effects.includes("delete")
}

/** Whether a string is a toolset name (case-sensitive). */
export const isToolset = (value: string): value is Toolset => (toolsets as ReadonlyArray<string>).includes(value)
export * from "./capability.ts"
