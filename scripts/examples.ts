/**
 * Writes docs/examples.json: one real request and its response per tool, produced by
 * test/support/examples.ts against scratch tmux servers (needs `npm run build` and tmux).
 * `npm run docs:examples` runs it and then the docs generator, which puts each on its tool's page.
 */
import { writeFileSync } from "node:fs"
import { examplesPath, produceExamples } from "../test/support/examples.ts"

const examples = await produceExamples()
writeFileSync(examplesPath, `${JSON.stringify(examples, null, 2)}\n`)
console.log(`wrote ${examplesPath} (${Object.keys(examples).length} tools)`)
