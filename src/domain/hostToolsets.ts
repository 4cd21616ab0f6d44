/**
 * Per-host toolsets of a hub (`--host-toolsets NAME=TOOLSET[,TOOLSET]`, or LIBTMUX_HOST_TOOLSETS):
 * a host narrowed to some of the hub's toolsets offers the hub's tools of those toolsets, and no
 * other. A narrowing never widens: a toolset the hub's selection has no tool of stops startup.
 */
import * as Result from "effect/Result"
import { isToolset, manifest, type ToolName, type Toolset, toolsets } from "../manifest/index.ts"
import type { Selection } from "./selection.ts"
import { settingInvalid, type StartupError } from "./StartupError.ts"

/** The narrowed hosts and their toolsets, by host name; a host not named has the hub's tools. @category models */
export type HostToolsets = Readonly<Record<string, ReadonlyArray<Toolset>>>

const flag = "--host-toolsets"

/**
 * Parses the comma list (the flags, repeated, are joined with commas as --host's are): a word with
 * `=` starts a host, the words after it add toolsets to that host, `prod=inspect,gpu=inspect,execute`.
 * `names` are the hosts a call may name (`local` among them unless --no-local).
 */
export const parseHostToolsets = (
  raw: string,
  names: ReadonlyArray<string>
): Result.Result<HostToolsets, StartupError> =>
  Result.gen(function*() {
    const refuse = (detail: string) =>
      Result.fail(settingInvalid(flag, `${flag} ${JSON.stringify(raw)} is not valid: ${detail}`))
    const narrowed: Record<string, Array<Toolset>> = {}
    let current: Array<Toolset> | undefined
    for (const word of raw.split(",").map((token) => token.trim())) {
      const eq = word.indexOf("=")
      const name = eq === -1 ? undefined : word.slice(0, eq)
      const toolset = eq === -1 ? word : word.slice(eq + 1)
      if (name !== undefined) {
        if (!names.includes(name)) {
          return yield* refuse(`${JSON.stringify(name)} is not a host of this hub; hosts: ${names.join(", ")}`)
        }
        if (narrowed[name] !== undefined) return yield* refuse(`${name} is given twice; give each host once`)
        current = narrowed[name] = []
      } else if (current === undefined) {
        return yield* refuse(`use NAME=TOOLSET[,TOOLSET], NAME one of ${names.join(", ")}`)
      }
      if (toolset === "") return yield* refuse("an empty toolset; write toolsets separated by single commas")
      if (!isToolset(toolset)) {
        return yield* refuse(`unknown toolset ${JSON.stringify(toolset)}; valid toolsets: ${toolsets.join(", ")}`)
      }
      if (!current!.includes(toolset)) current!.push(toolset)
    }
    return narrowed
  })

/** Whether `tool` is offered on `host`: the hub offers it, and the host is not narrowed away from its toolset. */
export const onHost = (narrowed: HostToolsets | undefined, host: string, tool: string): boolean => {
  const only = narrowed?.[host]
  return only === undefined || only.includes(manifest[tool as ToolName]?.toolset)
}

/** The toolsets the selection has tools of: what a host may be narrowed to. */
const toolsetsOf = (tools: ReadonlyArray<ToolName>): ReadonlyArray<Toolset> =>
  toolsets.filter((toolset) => tools.some((name) => manifest[name].toolset === toolset))

/**
 * The hub's surface, given its hosts: a toolset the selection has no tool of is a startup error
 * naming those it has; a tool no host offers leaves the surface (with --no-local, or `local`
 * narrowed too), so the hub never advertises a tool it can call nowhere.
 */
export const narrowSelection = (
  selection: Selection,
  names: ReadonlyArray<string>,
  narrowed: HostToolsets | undefined
): Result.Result<Selection, StartupError> => {
  if (narrowed === undefined) return Result.succeed(selection)
  const has = toolsetsOf(selection.tools)
  for (const [host, only] of Object.entries(narrowed)) {
    const beyond = only.filter((toolset) => !has.includes(toolset))
    if (beyond.length > 0) {
      return Result.fail(settingInvalid(
        flag,
        `${flag} ${host}=${only.join(",")} names ${beyond.join(", ")}, which this server's selection has no tool ` +
          `of: a host is narrowed, never widened; the selection's toolsets: ${has.join(", ") || "none"}`
      ))
    }
  }
  const somewhere = (name: ToolName) => names.some((host) => onHost(narrowed, host, name))
  const tools = selection.tools.filter(somewhere)
  return Result.succeed({
    ...selection,
    tools,
    toolsets: selection.toolsets.filter((toolset) => tools.some((name) => manifest[name].toolset === toolset)),
    batchOperations: selection.batchOperations.filter(somewhere)
  })
}

/**
 * The selection settings a narrowed host's server starts with: the toolsets it keeps of the hub's
 * groups, the hub's named tools of its toolsets, the hub's exclusions. It then offers exactly the
 * hub's tools of its toolsets (its batch the same operations), whatever its own default would be.
 */
export const hostSelectionSettings = (
  selection: Selection,
  given: { readonly tools: string | undefined; readonly excludeTools: string | undefined },
  only: ReadonlyArray<Toolset>
): Readonly<Record<string, string>> => {
  const named = (given.tools ?? "").split(",").map((token) => token.trim()).filter((name) =>
    only.includes(manifest[name as ToolName]?.toolset)
  )
  return {
    LIBTMUX_TOOLSETS: selection.toolsets.filter((toolset) => only.includes(toolset)).join(","),
    ...(named.length === 0 ? {} : { LIBTMUX_TOOLS: named.join(",") }),
    ...(given.excludeTools === undefined ? {} : { LIBTMUX_EXCLUDE_TOOLS: given.excludeTools })
  }
}

/** Each host's state with the toolsets it offers: its narrowing, or the hub's toolsets. */
export const withToolsets = <S extends { readonly host: string }>(
  narrowed: HostToolsets | undefined,
  hub: ReadonlyArray<Toolset>,
  states: ReadonlyArray<S>
): Array<S & { readonly toolsets: ReadonlyArray<Toolset> }> =>
  states.map((state) => ({ ...state, toolsets: narrowed?.[state.host] ?? hub }))
