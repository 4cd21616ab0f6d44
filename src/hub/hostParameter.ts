/**
 * A hub's tools/list: every tool takes `host`, an enum of the declared names that offer it (all of
 * them, unless --host-toolsets narrows some), from the startup configuration (never from a host's
 * answer). Required on execute and teardown tools when there is more than one host, so a forgotten
 * host never types into or removes something on the wrong machine, and on a tool the default host
 * does not offer; optional elsewhere (absent: the default host, which the instructions name).
 */
import type { Tool } from "@modelcontextprotocol/sdk/types.js"
import { hostNames, type HostTable } from "../domain/hosts.ts"
import { onHost } from "../domain/hostToolsets.ts"
import { manifest, type ToolName } from "../manifest/index.ts"
import { type CallError, HostToolMissing, InputInvalid } from "../services/errors.ts"

/** The hosts that offer `tool`, in declaration order (`local` first). */
export const toolHosts = (table: HostTable, tool: string): ReadonlyArray<string> =>
  hostNames(table).filter((host) => onHost(table.toolsets, host, tool))

/** Whether a tool's `host` is required under `table`. */
export const hostRequired = (table: HostTable, tool: string): boolean => {
  const toolset = manifest[tool as ToolName]?.toolset
  return (hostNames(table).length > 1 && (toolset === "execute" || toolset === "teardown")) ||
    !toolHosts(table, tool).includes(table.defaultHost)
}

/**
 * Why a call cannot go to the `host` it gives (absent: the default), or undefined: a host missing
 * where it is required, one that is not declared, one narrowed away from the tool. Nothing is sent.
 */
export const hostRefusal = (table: HostTable, tool: string, host: unknown): CallError | undefined => {
  const names = hostNames(table)
  const offering = toolHosts(table, tool)
  if (host === undefined && hostRequired(table, tool)) {
    return new InputInvalid({
      tool,
      detail: offering.includes(table.defaultHost)
        ? `host is required: ${tool} acts on one machine; valid hosts: ${offering.join(", ")}`
        : `host is required: ${tool} is not offered on the default host ${table.defaultHost}; hosts that offer ` +
          `it: ${offering.join(", ")}`
    })
  }
  if (host !== undefined && (typeof host !== "string" || !names.includes(host))) {
    return new InputInvalid({
      tool,
      detail: `host ${JSON.stringify(host)} is not one of this server's hosts; valid hosts: ${offering.join(", ")}`
    })
  }
  const target = (host as string | undefined) ?? table.defaultHost
  return offering.includes(target) ? undefined : new HostToolMissing({
    host: target,
    tool,
    toolsets: table.toolsets?.[target] ?? [],
    hosts: offering
  })
}

/** The tool's entry with `host` among its parameters. */
export const withHostParameter = (table: HostTable, tool: Tool): Tool => {
  const schema = tool.inputSchema
  const required = hostRequired(table, tool.name)
  return {
    ...tool,
    inputSchema: {
      ...schema,
      properties: { ...schema.properties, host: { type: "string", enum: [...toolHosts(table, tool.name)] } },
      ...(required ? { required: [...(schema.required ?? []), "host"] } : {})
    }
  }
}

/** The instructions' line for a hub: the hosts, the default, and that IDs belong to one host. */
export const hubLine = (table: HostTable): string =>
  `Hosts: ${hostNames(table).join(", ")}${table.local ? " (local is this machine)" : ""}; every tool takes host ` +
  `(absent: ${table.defaultHost}${hostNames(table).length > 1 ? "; execute and teardown tools require it" : ""}).` +
  // As short whatever the number of hosts: each tool's enum says where it is.
  (table.toolsets === undefined
    ? ""
    : " Some hosts offer fewer tools: each tool's host lists the hosts that offer it.") +
  " Session, window, pane and run IDs belong to the host that gave them: pass that host with them."
