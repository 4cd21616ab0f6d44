/**
 * Reads vitest's JSON report and prints the plain closing line CI reads: `N passed, N failed`.
 * A test file that failed to load (so ran no test) counts as one failure; a missing report is a
 * failure too. Exits non-zero when anything failed.
 */
import { existsSync, readFileSync } from "node:fs"

interface Report {
  readonly numPassedTests: number
  readonly numFailedTests: number
  readonly testResults: ReadonlyArray<
    {
      readonly name: string
      readonly status: string
      readonly message?: string
      readonly assertionResults: ReadonlyArray<unknown>
    }
  >
}

const path = process.argv[2] ?? ".vitest-report.json"
if (!existsSync(path)) {
  console.log("test report missing: the test run did not finish")
  console.log("0 passed, 1 failed")
  process.exit(1)
}
const report = JSON.parse(readFileSync(path, "utf8")) as Report
const unloaded = report.testResults.filter((file) => file.status === "failed" && file.assertionResults.length === 0)
for (const file of unloaded) console.log(`failed to load: ${file.name}: ${file.message ?? ""}`)
// Failures found outside the test runner (the CI script's leftover check), passed as a count.
const outside = Number(process.argv[3] ?? 0)
const failed = report.numFailedTests + unloaded.length + outside
console.log(`${report.numPassedTests} passed, ${failed} failed`)
process.exit(failed > 0 || report.numPassedTests === 0 ? 1 : 0)
