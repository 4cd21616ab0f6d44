/**
 * Regenerates the documentation that derives from the manifest: the README's tool inventory,
 * between its BEGIN/END GENERATED markers. `npm run docs` writes; `--check` fails when stale.
 */
import { readFileSync, writeFileSync } from "node:fs"
import { resolve } from "node:path"
import { manifest, toolNames, toolsets } from "../src/manifest/index.ts"
import { registeredNames } from "../src/tools/index.ts"

const root = resolve(import.meta.dirname, "..")
const begin = "<!-- BEGIN GENERATED: tools (npm run docs) -->"
const end = "<!-- END GENERATED: tools -->"

const yes = (flag: boolean) => flag ? "yes" : "no"

/** The inventory table: every manifest tool, marked with whether this build has it. */
export const inventory = (): string => {
  const lines = [
    `This build registers ${registeredNames.size} of the ${toolNames.length} tools in the design's inventory; the others are`,
    "planned and absent from `tools/list` (naming one in `LIBTMUX_TOOLS` is a startup error that says so).",
    ""
  ]
  for (const toolset of toolsets) {
    lines.push(`**${toolset}**`, "", "| tool | in this build | process reach | tmux effect | output | read-only | destructive | idempotent | open world |", "|---|---|---|---|---|---|---|---|---|")
    for (const name of toolNames.filter((n) => manifest[n].toolset === toolset)) {
      const row = manifest[name]
      lines.push(
        `| \`${name}\` | ${yes(registeredNames.has(name))} | ${row.reach} | ${row.effect.join("+")} | ${row.output.join(", ")} | ` +
          `${yes(row.hints.readOnly)} | ${yes(row.hints.destructive)} | ${yes(row.hints.idempotent)} | ${yes(row.hints.openWorld)} |`
      )
    }
    lines.push("")
  }
  return lines.join("\n").trimEnd()
}

const readmePath = resolve(root, "README.md")
const readme = readFileSync(readmePath, "utf8")
const start = readme.indexOf(begin)
const stop = readme.indexOf(end)
if (start === -1 || stop === -1) throw new Error(`README.md lacks the ${begin} / ${end} markers`)
const next = `${readme.slice(0, start + begin.length)}\n${inventory()}\n${readme.slice(stop)}`
if (process.argv.includes("--check")) {
  if (next !== readme) {
    console.error("README.md's generated tool inventory is stale: run `npm run docs` and commit the result")
    process.exit(1)
  }
} else {
  writeFileSync(readmePath, next)
}
