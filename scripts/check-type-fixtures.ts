/**
 * Compile-fail fixtures: each file in test/types/fail marks the line that must fail to type-check
 * with a comment just above it, `// expect-error: TS<code> <message fragment>`. The compiler must
 * report exactly the marked errors: on each marked line one error, with that code and a message
 * that contains the fragment, and no error anywhere else, so a fixture cannot pass on an
 * unrelated error. Each has a compiling positive twin in test/types/pass, checked by the main
 * tsconfig. One compiler run checks them all (a fixture is a module of its own, so its errors are
 * its own): each error is told by the file it names.
 */
import { execFileSync } from "node:child_process"
import { mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs"
import { join, resolve } from "node:path"

const root = resolve(import.meta.dirname, "..")
const failDir = join(root, "test/types/fail")
const tsc = join(root, "node_modules/.bin/tsc")

interface Expected {
  readonly line: number
  readonly code: string
  readonly fragment: string
}
interface Diagnostic {
  readonly file: string
  readonly line: number
  readonly code: string
  readonly text: string
}

/** The marked errors of a fixture: each marker names the line after it (1-based). */
export const expectedErrors = (source: string): ReadonlyArray<Expected> =>
  source.split("\n").flatMap((text, i) => {
    const marker = /^\s*\/\/ expect-error: (TS\d+) (.+)$/u.exec(text)
    return marker === null ? [] : [{ line: i + 2, code: marker[1]!, fragment: marker[2]! }]
  })

/** tsc's `--pretty false` output as diagnostics, each with its elaboration lines. */
export const parseDiagnostics = (output: string): ReadonlyArray<Diagnostic> => {
  const found: Array<Diagnostic> = []
  for (const text of output.split("\n")) {
    const head = /^(.+)\((\d+),\d+\): error (TS\d+): (.*)$/u.exec(text)
    if (head !== null) found.push({ file: head[1]!, line: Number(head[2]), code: head[3]!, text: head[4]! })
    else if (found.length > 0 && text !== "") {
      const last = found.pop()!
      found.push({ ...last, text: `${last.text}\n${text}` })
    }
  }
  return found
}

/** What is wrong with a fixture's compiler output, or nothing. */
export const mismatches = (
  file: string,
  expected: ReadonlyArray<Expected>,
  diagnostics: ReadonlyArray<Diagnostic>
): ReadonlyArray<string> => {
  const problems: Array<string> = []
  for (const want of expected) {
    const at = diagnostics.filter((found) => found.file.endsWith(file) && found.line === want.line)
    if (at.length !== 1) problems.push(`line ${want.line}: ${at.length} errors, expected one ${want.code}`)
    else if (at[0]!.code !== want.code) problems.push(`line ${want.line}: ${at[0]!.code}, expected ${want.code}`)
    else if (!at[0]!.text.includes(want.fragment)) {
      problems.push(`line ${want.line}: the ${want.code} does not say "${want.fragment}":\n${at[0]!.text}`)
    }
  }
  for (const found of diagnostics) {
    if (!(found.file.endsWith(file) && expected.some((want) => want.line === found.line))) {
      problems.push(`unexpected error at ${found.file}:${found.line} ${found.code}: ${found.text.split("\n")[0]}`)
    }
  }
  return problems
}

const main = () => {
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
  const diagnostics = parseDiagnostics(output)
  const fixtureOf = (found: Diagnostic) => /(?:^|\/)test\/types\/fail\/([^/]+\.ts)$/u.exec(found.file)?.[1]
  let failures = 0
  for (const file of files) {
    const expected = expectedErrors(readFileSync(join(failDir, file), "utf8"))
    if (expected.length === 0) {
      console.log(`${file}: no "// expect-error: TS<code> <fragment>" line`)
      failures++
      continue
    }
    const own = diagnostics.filter((found) => fixtureOf(found) === file)
    const problems = own.length === 0 ? ["compiled, but must fail"] : mismatches(file, expected, own)
    if (problems.length > 0) {
      console.log(`${file}:\n  ${problems.join("\n  ")}`)
      failures++
    } else {
      console.log(`${file}: fails as expected`)
    }
  }
  // An error in a file that is not a fixture (a shared import) would hide behind the fixtures' own.
  const elsewhere = diagnostics.filter((found) => fixtureOf(found) === undefined)
  if (elsewhere.length > 0) {
    console.log(
      `errors outside the fixtures:\n${
        elsewhere.map((found) => `${found.file}:${found.line} ${found.text}`).join("\n")
      }`
    )
    failures++
  }
  process.exit(failures > 0 ? 1 : 0)
}

if (import.meta.main) main()
