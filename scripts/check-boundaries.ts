/**
 * The boundary check (rules in boundaries.ts) over src/tools/** and src/programs/**, that src/domain/**
 * does no I/O and imports nothing above it, that src/** has no import cycle, that src/layers/** imports nothing
 * above it and src/generated/** nothing at all, then its own self-test: each fixture in test/boundaries/fail
 * must break the rule its `// expect-violation:` line names, and each in
 * test/boundaries/pass must break none (fixtures under a domain/ folder by the domain's rules). Exits 1 on
 * any failure.
 */
import { readdirSync, readFileSync } from "node:fs"
import { join, relative, resolve } from "node:path"
import { domainViolations, importCycles, violations } from "./boundaries.ts"

const root = resolve(import.meta.dirname, "..")
process.chdir(root)

const filesUnder = (dir: string): ReadonlyArray<string> =>
  readdirSync(dir, { recursive: true, encoding: "utf8" }).filter((name) => name.endsWith(".ts")).map((name) =>
    join(dir, name)
  ).sort()

let failures = 0
for (const path of [...filesUnder("src/tools"), ...filesUnder("src/programs")]) {
  for (const found of violations(path, readFileSync(path, "utf8"))) {
    failures++
    console.log(`${path}:${found.line}: ${found.rule}: ${found.detail}`)
  }
}
// The domain does no I/O.
for (const path of filesUnder("src/domain")) {
  for (const found of domainViolations(path, readFileSync(path, "utf8"))) {
    failures++
    console.log(`${path}:${found.line}: ${found.rule}: ${found.detail}`)
  }
}
// No module imports itself through others.
for (const cycle of importCycles(new Map(filesUnder("src").map((path) => [path, readFileSync(path, "utf8")])))) {
  failures++
  console.log(`import-cycle: ${cycle.join(" -> ")}`)
}
// Generated modules are data: they import no module of the source tree.
for (const path of filesUnder("src/generated")) {
  for (const match of readFileSync(path, "utf8").matchAll(/\bfrom\s+"(\.[^"]+)"/gu)) {
    failures++
    console.log(`${path}: generated-depends-upward: imports ${match[1]}`)
  }
}
// The live layers implement services over the platform: they know no tool, program, dispatch or wire.
for (const path of filesUnder("src/layers")) {
  const source = readFileSync(path, "utf8")
  for (const match of source.matchAll(/\bfrom\s+"(\.\.\/(?:tools|programs|dispatch|wire|startup)\/[^"]+)"/gu)) {
    failures++
    console.log(`${path}: layer-depends-upward: imports ${match[1]}`)
  }
}
// Fixtures under a domain/ folder are checked as domain files, the others as tool code.
// Fixtures under a cycle/ folder import each other: each must be found in a cycle among its folder's fixtures.
const fixtureCycles = (folder: string) =>
  new Set(importCycles(new Map(filesUnder(folder).map((path) => [path, readFileSync(path, "utf8")]))).flat())
const inCycles = new Set([...fixtureCycles("test/boundaries/fail"), ...fixtureCycles("test/boundaries/pass")])
const rulesFor = (path: string, source: string) => [
  ...(/\/domain\//u.test(path) ? domainViolations : violations)(relative(root, path), source),
  ...(inCycles.has(path) ? [{ rule: "import-cycle", line: 1, detail: "imports itself through others" }] : [])
]
for (const path of filesUnder("test/boundaries/fail")) {
  const source = readFileSync(path, "utf8")
  const expected = /^\/\/ expect-violation: (\S+)$/mu.exec(source)?.[1]
  const rules = rulesFor(path, source).map((found) => found.rule)
  if (expected === undefined || !rules.includes(expected)) {
    failures++
    console.log(
      `${path}: must break ${expected ?? "(no // expect-violation: line)"}, broke ${rules.join(", ") || "nothing"}`
    )
  }
}
for (const path of filesUnder("test/boundaries/pass")) {
  for (const found of rulesFor(path, readFileSync(path, "utf8"))) {
    failures++
    console.log(`${path}:${found.line}: a pass fixture broke ${found.rule}: ${found.detail}`)
  }
}
if (failures > 0) {
  console.log(
    `${failures} boundary failure(s): tools reach tmux only through ` +
      "their row's services, with fixed or literalized formats"
  )
  process.exit(1)
}
console.log("boundaries hold")
