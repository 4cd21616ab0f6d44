/**
 * A run_shell_command through a hub, and its run ID once its progress names it: the ID travels as
 * data, in the report's `_meta`, from the host's server through the hub.
 */
import type { Client } from "@modelcontextprotocol/sdk/client/index.js"
import type { CallToolResult } from "@modelcontextprotocol/sdk/types.js"
import { runIdMetaKey } from "../../src/services/Progress.ts"

/** Starts the run on `host`; the answer, and the run ID its progress named. */
export const startHubRun = (client: Client, host: string, paneId: string, command: string) => {
  const named = Promise.withResolvers<string>()
  const answer = client.callTool(
    { name: "run_shell_command", arguments: { host, pane_id: paneId, command, timeout: 20 } },
    undefined,
    {
      timeout: 60_000,
      onprogress: (progress) => {
        const id = (progress as { readonly _meta?: Readonly<Record<string, unknown>> })._meta?.[runIdMetaKey]
        if (typeof id === "string") named.resolve(id)
      }
    }
  ) as Promise<CallToolResult>
  // Awaited by the caller; a failure before then must not leave its rejection unhandled.
  answer.catch(() => undefined)
  return { answer, runId: named.promise }
}
