/**
 * Compile-fail fixtures: each file in test/types/fail must fail to type-check with the message
 * its first line names (`// expect-error: <text>`), so a fixture cannot pass on an unrelated
 * error. Each has a compiling positive twin in test/types/pass, checked by the main tsconfig.
 */
import { execFileSync } from "node:child_process"
import { mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs"
import { join, resolve } from "node:path"

const root = resolve(import.meta.dirname, "..")
const failDir = join(root, "test/types/fail")
const tsc = join(root, "node_modules/.bin/tsc")
let failures = 0
for (const file of readdirSync(failDir).filter((name) => name.endsWith(".ts")).sort()) {
  const path = join(failDir, file)
  const expected = /^\/\/ expect-error: (.+)$/mu.exec(readFileSync(path, "utf8"))?.[1]
  if (expected === undefined) {
    console.log(`${file}: no "// expect-error:" line`)
    failures++
    continue
  }
  // Inside the checkout, so that type packages resolve from its node_modules.
  const dir = mkdtempSync(join(root, "test/types/.fixture-"))
  const config = join(dir, "tsconfig.json")
  writeFileSync(config, JSON.stringify({ extends: join(root, "tsconfig.json"), include: [path], exclude: [] }))
  let output = ""
  try {
    execFileSync(tsc, ["-p", config], { encoding: "utf8", stdio: "pipe" })
  } catch (error) {
    output = String((error as { stdout?: string }).stdout ?? "")
  }
  rmSync(dir, { recursive: true, force: true })
  if (output === "") {
    console.log(`${file}: compiled, but must fail with "${expected}"`)
    failures++
  } else if (!output.includes(expected)) {
    console.log(`${file}: failed for another reason than "${expected}":\n${output}`)
    failures++
  } else {
    console.log(`${file}: fails as expected`)
  }
}
process.exit(failures > 0 ? 1 : 0)
