// npm ci's first lifecycle step in a checkout (preinstall): on a Node older than package.json's
// engines floor it ends the install with one line saying what to do. Plain JavaScript, so the
// old Node that runs it parses it; npm's own engine warning comes before it.
import { readFileSync } from "node:fs"

const floor = JSON.parse(readFileSync(new URL("../package.json", import.meta.url), "utf8")).engines.node
  .replace(/^>=/u, "")
const have = process.versions.node.split(".").map(Number)
const need = floor.split(".").map(Number)
const older = need.reduce((decided, part, i) => decided ?? (have[i] === part ? undefined : have[i] < part), undefined)
if (older === true) {
  console.error(
    `libtmux-mcp: this Node is ${process.versions.node} (${process.execPath}); the checkout needs Node >= ${floor}. ` +
      "Run `. scripts/node24.sh` in this shell (it fetches Node 24 from the npm registry), then `npm ci` again."
  )
  process.exit(1)
}
