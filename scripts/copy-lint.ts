/**
 * Runs the copy lint over the tracked files (code, docs, tool descriptions through the sources and
 * the generated pages): prints each affirmative claim with its place, exits 1 when there is one.
 */
import { execFileSync } from "node:child_process"
import { readFileSync } from "node:fs"
import { resolve } from "node:path"
import { claimsIn, exempt } from "./copyClaims.ts"

const root = resolve(import.meta.dirname, "..")
const files = execFileSync("git", ["ls-files", "--cached", "--others", "--exclude-standard"], {
  cwd: root,
  encoding: "utf8"
})
  .split("\n")
  .filter((path) => /\.(ts|md|json|conf)$/u.test(path) && !path.endsWith("package-lock.json") && !exempt(path))
let found = 0
for (const path of files) {
  readFileSync(resolve(root, path), "utf8").split("\n").forEach((line, index) => {
    for (const claim of claimsIn(line)) {
      found++
      console.log(`${path}:${index + 1}: affirmative claim "${claim}": ${line.trim()}`)
    }
  })
}
if (found > 0) {
  console.log(
    `${found} affirmative sandbox or containment claim(s); rephrase ` +
      "as what the code does, or as a boundary it does not provide"
  )
  process.exit(1)
}
