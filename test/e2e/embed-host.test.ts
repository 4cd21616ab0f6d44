/**
 * A host on the lowest Effect of the peer range: the packed package installs beside it with no second
 * copy of Effect, the host's program type-checks against the package's declarations, and it runs the
 * tools in process against a real tmux. npm takes what it can from its cache and the rest from the
 * registry (the lowest Effect is not what `npm ci` cached).
 */
import { execFileSync } from "node:child_process"
import { existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { afterAll, assert, describe, it } from "vitest"
import { binPath } from "../support/mcp.ts"
import { makeWorld } from "../support/tmux.ts"

const root = join(binPath, "..", "..")
const manifest = JSON.parse(readFileSync(join(root, "package.json"), "utf8"))
const lowestEffect = (manifest.peerDependencies.effect as string).replace(/^\^/u, "")
const dir = mkdtempSync(join(tmpdir(), "libtmux-mcp-host-"))
const world = makeWorld("host")
afterAll(() => {
  world.dispose()
  rmSync(dir, { recursive: true, force: true })
}, 120_000)

const run = (command: string, args: ReadonlyArray<string>, cwd: string, env: NodeJS.ProcessEnv = process.env) =>
  execFileSync(command, [...args], {
    cwd,
    encoding: "utf8",
    env: { ...env, npm_config_update_notifier: "false" },
    stdio: ["ignore", "pipe", "pipe"],
    timeout: 120_000
  })

const hostProgram = `import * as Effect from "effect/Effect"
import { callTool, layer, type RegisteredTool } from "libtmux-mcp"

const first: RegisteredTool = "run_shell_command"
const program = Effect.gen(function*() {
  const created = yield* callTool("create_session", { session_name: "host" })
  const ran = yield* callTool(first, { pane_id: created.pane_id, command: "echo from-the-host", timeout: 30 })
  const exit: number | null = ran.exit_status
  return { exit, output: ran.output }
})
const result = await Effect.runPromise(
  program.pipe(Effect.provide(layer({ env: { ...process.env, LIBTMUX_TOOLSETS: "inspect,execute" } })))
)
console.log(JSON.stringify(result))
`

describe("a host on the lowest Effect of the peer range", () => {
  it(`installs beside effect@${lowestEffect} with one copy of it, type-checks, and runs a tool`, () => {
    const tarball = run("node", [join(root, "scripts", "pack.ts"), dir], root).trim()
    const host = join(dir, "host")
    mkdirSync(host)
    writeFileSync(
      join(host, "package.json"),
      JSON.stringify({
        name: "effect-host",
        private: true,
        type: "module",
        dependencies: { effect: lowestEffect, "libtmux-mcp": `file:${tarball}` }
      })
    )
    run("npm", ["install", "--prefer-offline", "--no-audit", "--no-fund", "--ignore-scripts"], host)
    const installed = join(host, "node_modules", "libtmux-mcp")
    assert.isFalse(existsSync(join(installed, "node_modules", "effect")), "no nested Effect")
    assert.strictEqual(
      JSON.parse(readFileSync(join(host, "node_modules", "effect", "package.json"), "utf8")).version,
      lowestEffect
    )
    writeFileSync(join(host, "host.ts"), hostProgram)
    writeFileSync(
      join(host, "tsconfig.json"),
      JSON.stringify({
        compilerOptions: {
          target: "ES2024",
          module: "NodeNext",
          moduleResolution: "NodeNext",
          strict: true,
          exactOptionalPropertyTypes: true,
          types: ["node"],
          typeRoots: [join(root, "node_modules", "@types")],
          noEmit: true,
          skipLibCheck: false
        },
        files: ["host.ts"]
      })
    )
    // The declarations are checked too (skipLibCheck off): they must agree with the host's Effect.
    run(join(root, "node_modules", ".bin", "tsc"), ["-p", "tsconfig.json"], host)
    // The world's environment (HOME its folder): the pane's shell reads no startup files of the user's,
    // and the history it writes as it exits goes where the world's cleanup waits for it.
    const printed = JSON.parse(run("node", ["host.ts"], host, { ...world.env }).trim().split("\n").at(-1)!)
    assert.deepStrictEqual(printed, { exit: 0, output: "from-the-host" })
    assert.include(readdirSync(world.socketDir), "libtmux-mcp", "the host's tools made their own socket")
  }, 240_000)
})
