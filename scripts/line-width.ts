/**
 * Lines of code over 120 columns, which the formatter cannot break (long strings and comments):
 * prints each with its place and exits 1 when there is one.
 */
import { execFileSync } from "node:child_process"
import { readFileSync } from "node:fs"
import { resolve } from "node:path"

const root = resolve(import.meta.dirname, "..")
const maxColumns = 120
const files = execFileSync("git", ["ls-files", "--cached", "--others", "--exclude-standard", "*.ts", "*.js"], {
  cwd: root,
  encoding: "utf8"
}).split("\n").filter((path) => path !== "" && !path.startsWith("src/generated/"))
let found = 0
for (const path of files) {
  readFileSync(resolve(root, path), "utf8").split("\n").forEach((line, index) => {
    const columns = [...line].length
    if (columns > maxColumns) {
      found++
      console.log(`${path}:${index + 1}: ${columns} columns (at most ${maxColumns})`)
    }
  })
}
if (found > 0) process.exit(1)
