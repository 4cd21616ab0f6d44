/**
 * The line a failure before (or while) serving prints on stderr, so that a client's "connection
 * closed" has a cause in its log. stdout stays JSON-RPC only.
 */

// Loaded by the entry before the Node check has passed: syntax that much older Nodes parse.
const firstLine = (text: string): string => {
  const [first = ""] = text.split("\n")
  return first
}

/** Node's codes for a module or package that cannot be found or resolved. */
const missingModule = new Set(["ERR_MODULE_NOT_FOUND", "MODULE_NOT_FOUND", "ERR_PACKAGE_PATH_NOT_EXPORTED"])

/**
 * One line naming what failed; a missing module is a known condition (the package's dependencies
 * are not installed) and gets the remedy, anything else is a defect and its stack follows on stderr.
 */
export const failureText = (what: string, error: unknown): { readonly line: string; readonly detail?: string } => {
  const code = typeof error === "object" && error !== null ? (error as { code?: unknown }).code : undefined
  const message = firstLine(error instanceof Error ? error.message : String(error))
  if (typeof code === "string" && missingModule.has(code)) {
    return {
      line: `libtmux-mcp: ${what} failed: ${message} (this package's dependencies are missing: ` +
        "run npm ci in the checkout, or install the package with npm)"
    }
  }
  const stack = error instanceof Error && error.stack !== undefined ? error.stack : undefined
  return stack === undefined
    ? { line: `libtmux-mcp: ${what} failed: ${message}` }
    : { line: `libtmux-mcp: ${what} failed: ${message}`, detail: stack }
}

/** Writes the failure to stderr and makes the process exit non-zero. */
export const reportFailure = (what: string, error: unknown): void => {
  const { line, detail } = failureText(what, error)
  process.stderr.write(`${line}\n${detail === undefined ? "" : `${detail}\n`}`)
  process.exitCode = 1
}
