/**
 * A hub's tools/list: every tool takes `host`, an enum of the declared names, from the startup
 * configuration (never from a host's answer). Required on execute and teardown tools when there
 * is more than one host, so a forgotten host never types into or removes something on the wrong
 * machine; optional elsewhere (absent: the default host, which the instructions name).
 */
import type { Tool } from "@modelcontextprotocol/sdk/types.js"
import { hostNames, type HostTable } from "../domain/hosts.ts"
import { manifest, type ToolName } from "../manifest/index.ts"

/** Whether a tool's `host` is required under `table`. */
export const hostRequired = (table: HostTable, tool: string): boolean => {
  const toolset = manifest[tool as ToolName]?.toolset
  return hostNames(table).length > 1 && (toolset === "execute" || toolset === "teardown")
}

/** The tool's entry with `host` among its parameters. */
export const withHostParameter = (table: HostTable, tool: Tool): Tool => {
  const schema = tool.inputSchema
  const required = hostRequired(table, tool.name)
  return {
    ...tool,
    inputSchema: {
      ...schema,
      properties: { ...schema.properties, host: { type: "string", enum: [...hostNames(table)] } },
      ...(required ? { required: [...(schema.required ?? []), "host"] } : {})
    }
  }
}

/** The instructions' line for a hub: the hosts, the default, and that IDs belong to one host. */
export const hubLine = (table: HostTable): string =>
  `Hosts: ${hostNames(table).join(", ")}${table.local ? " (local is this machine)" : ""}; every tool takes host ` +
  `(absent: ${table.defaultHost}${
    hostNames(table).length > 1 ? "; execute and teardown tools require it" : ""
  }). Session, window, pane and run IDs belong to the host that gave them: pass that host with them.`
