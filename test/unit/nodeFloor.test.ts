/** The Node floor the entry checks: equal to package.json's engines, and compared part by part. */
import { readFileSync } from "node:fs"
import { assert, it } from "vitest"
import { nodeFloor, nodeNewEnough } from "../../src/domain/nodeFloor.ts"

it("keeps the entry's floor equal to package.json's engines.node", () => {
  const pkg = JSON.parse(readFileSync(new URL("../../package.json", import.meta.url), "utf8")) as {
    engines: { node: string }
  }
  assert.strictEqual(pkg.engines.node, `>=${nodeFloor}`)
})

it("compares versions by number, not as text", () => {
  for (const version of ["22.19.0", "v22.19.0", "22.20.0", "23.0.0", "24.22.3", "100.0.0"]) {
    assert.isTrue(nodeNewEnough(version), version)
  }
  for (const version of ["22.18.9", "v20.20.2", "22.9.0", "18.0.0", "3.0.0", "", "x"]) {
    assert.isFalse(nodeNewEnough(version), version)
  }
})
