/**
 * The oldest Node this package runs on, and the line that says so. Loaded by the entry before
 * anything else, so it imports nothing and uses only syntax an old Node parses.
 */

/** package.json's `engines.node` floor; a unit test keeps the two equal. */
export const nodeFloor = "22.19.0"

/** How to get a Node that is new enough: the README's way, then the general one. */
export const nodeRemedy = "get one with `. scripts/node24.sh` in a checkout (see the README), or install Node 24 LTS"

/** Whether a Node version (`process.versions.node`, `v` optional) is at least the floor. */
export const nodeNewEnough = (version: string): boolean => {
  const found = version.replace(/^v/u, "").split(".").map(Number)
  const floor = nodeFloor.split(".").map(Number)
  for (let i = 0; i < floor.length; i++) {
    const have = found[i] === undefined || Number.isNaN(found[i]) ? 0 : found[i]!
    if (have !== floor[i]) return have > floor[i]!
  }
  return true
}

/** The one line for a Node older than the floor: which Node, which version is needed, how to get it. */
export const oldNodeLine = (version: string, path: string): string =>
  `libtmux-mcp: Node ${version.replace(/^v/u, "")} (${path}) is too old; libtmux-mcp needs Node >= ${nodeFloor}: ` +
  nodeRemedy
