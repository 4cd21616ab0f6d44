/**
 * The protocol-name check (rules in protocolSpellings.ts) over src/, generated files aside (they are
 * made from the code): exits 1 when a protocol name is spelled outside src/domain/protocolNames.ts.
 */
import { readdirSync, readFileSync } from "node:fs"
import { join, resolve } from "node:path"
import { spellingsIn } from "./protocolSpellings.ts"

process.chdir(resolve(import.meta.dirname, ".."))

const paths = readdirSync("src", { recursive: true, encoding: "utf8" })
  .filter((name) => name.endsWith(".ts") && !name.startsWith("generated/"))
  .map((name) => join("src", name))
  .sort()

let failures = 0
for (const path of paths) {
  for (const found of spellingsIn(path, readFileSync(path, "utf8"))) {
    failures++
    console.log(`${path}:${found.line}: protocol-name: ${found.what} spelled in ${found.text.slice(0, 80)}`)
  }
}
if (failures > 0) {
  console.log(`${failures} protocol name(s) spelled outside src/domain/protocolNames.ts: use its table`)
  process.exit(1)
}
console.log(`protocol names: ${paths.length} files, spelled in src/domain/protocolNames.ts only`)
