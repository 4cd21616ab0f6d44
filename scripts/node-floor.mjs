// npm ci's first lifecycle step in a checkout (preinstall): on a Node older than package.json's
// engines floor it ends the install with one line saying what to do. Plain JavaScript, so the
// old Node that runs it parses it; npm's own engine warning comes before it.
import { readFileSync } from "node:fs"
import { fileURLToPath } from "node:url"

/** The line for a Node older than the floor, or undefined when it is new enough. */
export const refusal = (version, floor, path) => {
  const have = version.replace(/^v/u, "").split(".").map(Number)
  const need = floor.split(".").map(Number)
  const older = need.reduce((decided, part, i) => decided ?? (have[i] === part ? undefined : have[i] < part), undefined)
  return older !== true ? undefined : `libtmux-mcp: this Node is ${version} (${path}); the checkout needs Node >= ${floor}. ` +
    "Run `. scripts/node24.sh` in this shell (it fetches Node 24 from the npm registry), then `npm ci` again."
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  const floor = JSON.parse(readFileSync(new URL("../package.json", import.meta.url), "utf8")).engines.node
  const line = refusal(process.versions.node, floor.replace(/^>=/u, ""), process.execPath)
  if (line !== undefined) {
    console.error(line)
    process.exit(1)
  }
}
