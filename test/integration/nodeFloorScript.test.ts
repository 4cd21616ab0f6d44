/**
 * npm ci's preinstall check (scripts/node-floor.mjs): an older Node than package.json's floor gets the
 * one line that says what to do; this Node passes.
 */
import { execFileSync } from "node:child_process"
import { join } from "node:path"
import { assert, it } from "vitest"
// @ts-expect-error: plain JavaScript for old Nodes, without declarations
import { refusal } from "../../scripts/node-floor.mjs"

const script = join(import.meta.dirname, "..", "..", "scripts", "node-floor.mjs")

it("refuses a Node older than the floor with the line naming it and the remedy, and passes newer ones", () => {
  assert.strictEqual(
    refusal("20.20.2", "22.19.0", "/usr/bin/node"),
    "libtmux-mcp: this Node is 20.20.2 (/usr/bin/node); the checkout needs Node >= 22.19.0. " +
      "Run `. scripts/node24.sh` in this shell (it fetches Node 24 from the npm registry), then `npm ci` again."
  )
  assert.isString(refusal("22.18.9", "22.19.0", "node"))
  for (const newer of ["22.19.0", "22.20.0", "24.0.0", "v24.22.3"]) {
    assert.isUndefined(refusal(newer, "22.19.0", "node"), newer)
  }
  // Run as npm runs it, by this (new enough) Node: it says nothing and exits 0.
  assert.strictEqual(execFileSync(process.execPath, [script], { encoding: "utf8", stdio: "pipe" }), "")
})
