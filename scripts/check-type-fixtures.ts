/**
 * Compile-fail fixtures: each file in test/types/fail must fail to type-check with the message
 * its first line names (`// expect-error: <text>`), so a fixture cannot pass on an unrelated
 * error. Each has a compiling positive twin in test/types/pass, checked by the main tsconfig.
 * One compiler run checks them all (a fixture is a module of its own, so its errors are its own):
 * each error is told by the file it names.
 */
import { execFileSync } from "node:child_process"
import { mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs"
import { join, resolve } from "node:path"

const root = resolve(import.meta.dirname, "..")
const failDir = join(root, "test/types/fail")
const tsc = join(root, "node_modules/.bin/tsc")
const files = readdirSync(failDir).filter((name) => name.endsWith(".ts")).sort()

// Inside the checkout, so that type packages resolve from its node_modules.
const dir = mkdtempSync(join(root, "test/types/.fixture-"))
const config = join(dir, "tsconfig.json")
writeFileSync(
  config,
  JSON.stringify({
    extends: join(root, "tsconfig.json"),
    include: files.map((file) => join(failDir, file)),
    exclude: []
  })
)
let output = ""
try {
  execFileSync(tsc, ["-p", config, "--pretty", "false"], { encoding: "utf8", stdio: "pipe" })
} catch (error) {
  output = String((error as { stdout?: string }).stdout ?? "")
} finally {
  rmSync(dir, { recursive: true, force: true })
}

/** The compiler's messages by file: a message starts at a line naming its file, indented lines continue it. */
const messages = new Map<string, Array<string>>()
let current: string | undefined
for (const line of output.split("\n")) {
  const file = /^(?:.*\/)?test\/types\/fail\/([^/(]+\.ts)\(\d+,\d+\): /u.exec(line)?.[1]
  if (file !== undefined) current = file
  else if (!/^\s/u.test(line)) current = undefined
  if (current !== undefined) messages.set(current, [...(messages.get(current) ?? []), line])
}

let failures = 0
for (const file of files) {
  const expected = /^\/\/ expect-error: (.+)$/mu.exec(readFileSync(join(failDir, file), "utf8"))?.[1]
  const text = (messages.get(file) ?? []).join("\n")
  if (expected === undefined) {
    console.log(`${file}: no "// expect-error:" line`)
    failures++
  } else if (text === "") {
    console.log(`${file}: compiled, but must fail with "${expected}"`)
    failures++
  } else if (!text.includes(expected)) {
    console.log(`${file}: failed for another reason than "${expected}":\n${text}`)
    failures++
  } else {
    console.log(`${file}: fails as expected`)
  }
}
// An error in a file that is not a fixture (a shared import) would hide behind the fixtures' own.
const elsewhere = output.split("\n").filter((line) =>
  /^\S.*\(\d+,\d+\): error/u.test(line) && !line.includes("test/types/fail/")
)
if (elsewhere.length > 0) {
  console.log(`errors outside the fixtures:\n${elsewhere.join("\n")}`)
  failures++
}
process.exit(failures > 0 ? 1 : 0)
