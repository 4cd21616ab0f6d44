/**
 * Tool selection, decided once at startup: expand the toolsets, add the named tools, subtract
 * the exclusions (last, beating every inclusion). Unknown names stop startup, because silent
 * fallback is how a typo becomes a capability grant.
 *
 * The default toolsets, used only when LIBTMUX_TOOLSETS is absent, depend on the endpoint:
 *
 * | socket      | tmux config        | server at startup | default                           |
 * |-------------|--------------------|-------------------|-----------------------------------|
 * | unset       | unset or minimal   | absent            | inspect, manage, execute, teardown |
 * | unset       | unset or minimal   | existing, recorded as libtmux-mcp's with the minimal configuration | all four |
 * | unset       | unset or minimal   | existing otherwise | inspect, manage, execute          |
 * | set (any)   | any                | any               | inspect, manage, execute           |
 * | any         | user or a path     | any               | inspect, manage, execute           |
 */
import * as Result from "effect/Result"
import { isToolset, manifest, rowFor, type ToolName, toolNames, type Toolset, toolsets } from "../manifest/index.ts"
import { settingInvalid, type StartupError } from "./StartupError.ts"

/** The raw selection variables; `undefined` means absent. @category models */
export interface SelectionInput {
  readonly toolsets: string | undefined
  readonly tools: string | undefined
  readonly excludeTools: string | undefined
}

/** What the default depends on. @category models */
export interface EndpointFacts {
  readonly socketExplicit: boolean
  readonly tmuxConfig: "minimal" | "user" | "path"
  readonly serverState: "absent" | "existing"
  /** What the server records about who started it: nothing, or libtmux-mcp with a configuration. */
  readonly provenance: "none" | "unknown" | "recorded-minimal" | "recorded-other"
}

/** The default that applied, and why. @category models */
export interface DefaultApplied {
  readonly toolsets: ReadonlyArray<Toolset>
  readonly reason: string
}

/** The effective selection. @category models */
export interface Selection {
  readonly toolsets: ReadonlyArray<Toolset>
  readonly tools: ReadonlyArray<ToolName>
  /** What the batch (the row that calls tools) may call: its nestedAuthority (empty when it is not selected). */
  readonly batchOperations: ReadonlyArray<ToolName>
  /** `null` when LIBTMUX_TOOLSETS was given. */
  readonly defaultApplied: DefaultApplied | null
}

/** The default toolsets for an endpoint, with the reason reported to the user. */
export const defaultToolsets = (facts: EndpointFacts): DefaultApplied => {
  const shared = ["inspect", "manage", "execute"] as const
  if (facts.socketExplicit || facts.tmuxConfig !== "minimal") {
    return { toolsets: shared, reason: "explicitly configured endpoint" }
  }
  if (facts.serverState === "absent") {
    return { toolsets: toolsets, reason: "new dedicated server, minimal configuration" }
  }
  return facts.provenance === "recorded-minimal"
    ? {
      toolsets: toolsets,
      reason: "existing dedicated server recorded as started by libtmux-mcp with the minimal configuration"
    }
    : { toolsets: shared, reason: "existing server of unknown provenance" }
}

/**
 * Splits a comma list: trimmed tokens, no empty segments. An entirely empty value yields `[]`;
 * whether that is allowed is the caller's rule.
 */
export const splitList = (variable: string, raw: string): Result.Result<ReadonlyArray<string>, StartupError> => {
  if (raw.trim() === "") return Result.succeed([])
  const tokens = raw.split(",").map((token) => token.trim())
  return tokens.includes("")
    ? Result.fail(
      settingInvalid(
        variable,
        `${variable} ${JSON.stringify(raw)} has an empty segment; write names separated by single commas`
      )
    )
    : Result.succeed(tokens)
}

/** Parses LIBTMUX_TOOLSETS: known, case-sensitive names, no empty segments. */
export const parseToolsets = (raw: string) =>
  Result.flatMap(splitList("LIBTMUX_TOOLSETS", raw), (tokens) => {
    const unknown = tokens.filter((token) => !isToolset(token))
    return unknown.length > 0
      ? Result.fail(
        settingInvalid(
          "LIBTMUX_TOOLSETS",
          `LIBTMUX_TOOLSETS names unknown toolset(s) ${unknown.join(", ")}; valid toolsets: ${toolsets.join(", ")}`
        )
      )
      : Result.succeed(tokens as ReadonlyArray<Toolset>)
  })

const parseTools = (variable: string, raw: string, available: ReadonlySet<ToolName>) =>
  Result.flatMap(splitList(variable, raw), (tokens) => {
    if (tokens.length === 0) {
      return Result.fail(
        settingInvalid(variable, `${variable} is set but empty; omit the variable when it names no tools`)
      )
    }
    const unknown = tokens.filter((token) => rowFor(token) === undefined)
    if (unknown.length > 0) {
      return Result.fail(
        settingInvalid(
          variable,
          `${variable} names unknown tool(s) ${unknown.join(", ")}; valid tools: ${toolNames.join(", ")}`
        )
      )
    }
    const missing = tokens.filter((token) => !available.has(token as ToolName))
    if (missing.length > 0) {
      return Result.fail(settingInvalid(
        variable,
        `${variable} names ${
          missing.join(", ")
        }, which the manifest lists but this build of libtmux-mcp does not have yet; ` +
          `tools in this build: ${toolNames.filter((name) => available.has(name)).join(", ")}`
      ))
    }
    return Result.succeed(tokens as ReadonlyArray<ToolName>)
  })

/**
 * Resolves the effective selection in manifest order: groups, then inclusions, then exclusions.
 * `available` is the set of tools this build registers; group members it lacks are left out.
 */
export const resolveSelection = (
  input: SelectionInput,
  facts: EndpointFacts,
  available: ReadonlySet<ToolName>
): Result.Result<Selection, StartupError> =>
  Result.gen(function*() {
    const given = input.toolsets === undefined ? undefined : yield* parseToolsets(input.toolsets)
    const included = input.tools === undefined ? [] : yield* parseTools("LIBTMUX_TOOLS", input.tools, available)
    const excluded = input.excludeTools === undefined
      ? []
      : yield* parseTools("LIBTMUX_EXCLUDE_TOOLS", input.excludeTools, available)
    const defaultApplied = given === undefined ? defaultToolsets(facts) : null
    const groups = new Set(given ?? defaultApplied!.toolsets)
    const chosen = new Set<ToolName>(included)
    const dropped = new Set<ToolName>(excluded)
    const picked = toolNames.filter((name) =>
      available.has(name) && (groups.has(manifest[name].toolset) || chosen.has(name)) && !dropped.has(name)
    )
    // The batch reaches the eligible reads of this selection; show_environment only when named.
    const batchOperations = picked.some((name) => manifest[name].callsTools)
      ? picked.filter((name) => manifest[name].batchEligible || (name === "show_environment" && chosen.has(name)))
      : []
    // A batch with nothing to call is left out of the surface.
    const tools = batchOperations.length === 0 ? picked.filter((name) => !manifest[name].callsTools) : picked
    return { toolsets: toolsets.filter((toolset) => groups.has(toolset)), tools, batchOperations, defaultApplied }
  })
