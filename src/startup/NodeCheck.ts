/**
 * `--print-config --node PATH`: the Node a client will run is checked before it is printed: that it
 * exists, runs, and is at least the floor, so a wrong path fails here and not in the client's log.
 */
import { execFileSync } from "node:child_process"
import { accessSync, constants, statSync } from "node:fs"
import { nodeFloor, nodeNewEnough, nodeRemedy } from "../domain/nodeFloor.ts"

/** What is wrong with the Node at `path`, or undefined when it will do. */
export const nodeProblem = (path: string): string | undefined => {
  try {
    if (!statSync(path).isFile()) return `--node ${path} is not a file`
    accessSync(path, constants.X_OK)
  } catch (error) {
    return `--node ${path} does not exist or cannot be run (${(error as NodeJS.ErrnoException).code ?? "error"})`
  }
  let version: string
  try {
    version = execFileSync(path, ["--version"], { encoding: "utf8", timeout: 10_000, stdio: "pipe" }).trim()
  } catch (error) {
    return `--node ${path} did not run: ${((error as Error).message.split("\n")[0] ?? "").trim()}`
  }
  if (!/^v\d+\.\d+\.\d+$/u.test(version)) {
    return `--node ${path} printed ${JSON.stringify(version.split("\n")[0])} for --version, not a Node version`
  }
  return nodeNewEnough(version)
    ? undefined
    : `--node ${path} is Node ${version.slice(1)}; libtmux-mcp needs Node >= ${nodeFloor}: ${nodeRemedy}`
}
