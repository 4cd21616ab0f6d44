/**
 * The toolsnap: every tool as `tools/list` advertises it for the full selection (name, title,
 * description, input and output schemas, annotations, `_meta`), committed as test/toolsnap.json.
 * test/e2e/toolsnap.test.ts fails when the running server's list differs, so a change to what a
 * model reads is made on purpose: `npm run toolsnap` rewrites the file, and the diff shows it.
 */
import * as Result from "effect/Result"
import { writeFileSync } from "node:fs"
import { resolve } from "node:path"
import { resolveSelection } from "../src/domain/selection.ts"
import { toolsets } from "../src/manifest/index.ts"
import { definitionOf, registeredNames } from "../src/tools/index.ts"
import { toolEntry } from "../src/wire/McpServer.ts"

/** The snapshot file. */
export const toolsnapPath = resolve(import.meta.dirname, "../test/toolsnap.json")

const selection = Result.getOrThrow(resolveSelection(
  { toolsets: toolsets.join(","), tools: undefined, excludeTools: undefined },
  { socketExplicit: false, tmuxConfig: "minimal", serverState: "absent", provenance: "none" },
  registeredNames
))
const tools = selection.tools.map((name) => {
  const definition = definitionOf(name)
  return toolEntry(
    definition.specialize === undefined ? definition : { ...definition, input: definition.specialize(selection) },
    selection.batchOperations
  )
})
writeFileSync(toolsnapPath, `${JSON.stringify({ tools }, null, 2)}\n`)
console.log(`wrote ${toolsnapPath} (${tools.length} tools)`)
