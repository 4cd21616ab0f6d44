/**
 * The pane view, an MCP App (the `io.modelcontextprotocol/ui` extension): a read-only page a host
 * shows in the conversation, polling the app-only `view_pane` tool. Offered only to a client that
 * declares the extension (at `initialize`, or on the request itself on 2026-07-28); every other
 * client's tool list, resources and results are what they were without it.
 */
import type { Tool } from "@modelcontextprotocol/sdk/types.js"
import { paneViewHtml } from "../generated/paneView.ts"
import type { ManifestRow } from "../manifest/index.ts"
import { objectOr } from "./Revision.ts"

/** The extension's identifier, in capabilities' `extensions`. */
export const uiExtension = "io.modelcontextprotocol/ui"
/** The MIME type of an app's page. */
export const appMimeType = "text/html;profile=mcp-app"
/** The older flat key for a tool's page, which some hosts still read. */
export const legacyResourceUriKey = "ui/resourceUri"

/** The pane view's resource. */
export const paneViewResource = {
  uri: "ui://libtmux-mcp/pane",
  name: "pane-view",
  title: "Pane view",
  mimeType: appMimeType,
  description: "A read-only view of one pane's screen, its cursor and the run in front; it polls view_pane " +
    "about once a second while shown and sends no keys.",
  // No network: the page asks for nothing beyond the host, and says so to hosts that apply a policy.
  _meta: { ui: { csp: { connectDomains: [], resourceDomains: [] }, prefersBorder: true } }
} as const

/** Tools whose results the view follows (their `pane_id`): the host shows the view beside them. */
export const viewedTools: ReadonlySet<string> = new Set(["run_shell_command", "capture_pane", "create_session"])

/** Whether capabilities declare the extension with the app page's MIME type. */
export const declaresUi = (capabilities: unknown): boolean => {
  const types = objectOr(objectOr(objectOr(capabilities)?.extensions)?.[uiExtension])?.mimeTypes
  return Array.isArray(types) && types.includes(appMimeType)
}

/** What a client sees of the tools: the model's list, or with the view, every tool pointing to it. */
export interface AppLists {
  readonly plain: ReadonlyArray<Tool>
  readonly withView: ReadonlyArray<Tool>
  /** The app-only tools (listed only with the view). */
  readonly appOnly: ReadonlySet<string>
}

/**
 * A tool as a client that shows apps sees it: the view's poll for the app alone; every other tool for
 * the model alone (a host that keeps to the extension refuses the page's calls of it); the tools
 * whose results the view follows name its page, in both keys hosts read.
 */
const forAppHost = (tool: Tool, audience: ManifestRow["audience"]): Tool => {
  const page = audience === "model" && viewedTools.has(tool.name)
  return {
    ...tool,
    _meta: {
      ...tool._meta,
      ui: { ...(page ? { resourceUri: paneViewResource.uri } : {}), visibility: [audience] },
      ...(page ? { [legacyResourceUriKey]: paneViewResource.uri } : {})
    }
  }
}

/**
 * Both lists from the selected tools' entries. The view is offered when its tool is selected and
 * the server has no hosts (the view's calls name no host).
 */
export const appLists = (
  entries: ReadonlyArray<{ readonly row: ManifestRow; readonly tool: Tool }>,
  hub: boolean
): AppLists => {
  const plain = entries.filter(({ row }) => row.audience === "model").map(({ tool }) => tool)
  const offered = !hub && entries.some(({ row }) => row.audience === "app")
  const withView = offered ? entries.map(({ row, tool }) => forAppHost(tool, row.audience)) : plain
  return {
    plain,
    withView,
    appOnly: new Set(entries.filter(({ row }) => row.audience === "app").map(({ tool }) => tool.name))
  }
}

/** The view's page as `resources/read` returns it. */
export const paneViewContents = () => ({
  contents: [{
    uri: paneViewResource.uri,
    mimeType: appMimeType,
    text: paneViewHtml,
    _meta: paneViewResource._meta
  }]
})
