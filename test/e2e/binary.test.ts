/**
 * The single executable (`npm run build:binary`) with no Node on PATH: `--version`, `--help`,
 * `--print-config`, and through the SDK's real Client over stdio tools/list, a session in tmux's
 * minimal configuration (the embedded share/ file), a run and a regex search (the worker thread
 * with re2js inlined). The executable is built here when it is missing or older than its sources.
 *
 * Issue 58, item 3: the minimal configuration it writes out lives in the lock folder, so that folder's
 * place is checked (a folder of another user on the way is refused), and tmux reads the file checked
 * at startup, never one swapped in later. The "stranger" is uid 65534, whose folder this (root)
 * process makes and chowns; as another user those tests are skipped, except in CI.
 */
import { Client } from "@modelcontextprotocol/sdk/client/index.js"
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js"
import { execFileSync, spawnSync } from "node:child_process"
import { createHash } from "node:crypto"
import {
  chmodSync,
  chownSync,
  copyFileSync,
  existsSync,
  lstatSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  renameSync,
  rmSync,
  statSync,
  symlinkSync,
  writeFileSync
} from "node:fs"
import { tmpdir } from "node:os"
import { basename, join } from "node:path"
import { fileURLToPath } from "node:url"
import { afterAll, assert, beforeAll, describe, it } from "vitest"
import { modelToolNames } from "../../src/manifest/index.ts"
import { harness } from "../support/harness.ts"
import { call, structured, textOf } from "../support/mcp.ts"
import type { TmuxWorld } from "../support/tmux.ts"

const root = fileURLToPath(new URL("../..", import.meta.url))
const built = join(root, "build", "binary", "libtmux-mcp")
// A copy away from the checkout: nothing it needs may come from files beside it.
const away = mkdtempSync(join(tmpdir(), "libtmux-mcp-binary-"))
const binary = join(away, "libtmux-mcp")
const version = JSON.parse(readFileSync(join(root, "package.json"), "utf8")).version as string

/** The newest modification time among the files the executable is built from. */
const newestSource = (): number => {
  const times: Array<number> = []
  const walk = (path: string): void => {
    const stats = statSync(path)
    if (stats.isDirectory()) { for (const entry of readdirSync(path)) walk(join(path, entry)) }
    else times.push(stats.mtimeMs)
  }
  for (const path of ["src", "share", "package-lock.json", "sea-config.json", "rolldown.binary.config.js"]) {
    walk(join(root, path))
  }
  walk(join(root, "scripts", "build-binary.ts"))
  return Math.max(...times)
}

beforeAll(() => {
  if (!existsSync(built) || statSync(built).mtimeMs < newestSource()) {
    // About a minute on two busy cores, most of it postject reading and writing Node's 120 MB.
    execFileSync(process.execPath, ["scripts/build-binary.ts"], { cwd: root, stdio: "ignore" })
  }
  copyFileSync(built, binary)
}, 300_000)
afterAll(() => rmSync(away, { recursive: true, force: true }))

const h = harness("binary")
const stranger = 65534
const withStranger = it.skipIf(process.getuid?.() !== 0 && process.env.CI !== "true")

/** A PATH of its own with the programs a session needs and no Node. */
const nodelessPath = (world: TmuxWorld): string => {
  const dir = join(world.dir, "bin")
  mkdirSync(dir)
  // id: the login shell's /etc/profile asks it.
  for (const program of ["tmux", "sh", "id"]) {
    symlinkSync(execFileSync("sh", ["-c", `command -v ${program}`], { encoding: "utf8" }).trim(), join(dir, program))
  }
  return dir
}

const binaryEnv = (world: TmuxWorld): Record<string, string> => ({
  PATH: nodelessPath(world),
  HOME: world.dir,
  SHELL: "/bin/sh",
  TERM: "xterm-256color",
  TMUX_TMPDIR: world.dir,
  XDG_CACHE_HOME: join(world.dir, "cache"),
  LIBTMUX_TOOLSETS: "inspect,manage,execute,teardown"
})

/** The executable serving over stdio, connected through the SDK's real Client. */
const serve = async (world: TmuxWorld, env: Record<string, string>) => {
  const transport = new StdioClientTransport({ command: binary, args: [], env, cwd: world.dir, stderr: "pipe" })
  let stderr = ""
  transport.stderr?.on("data", (chunk: Buffer) => (stderr += chunk.toString("utf8")))
  const client = new Client({ name: "libtmux-mcp-tests", version: "0.0.0" })
  await client.connect(transport)
  return { c: h.track({ client, stderr: () => stderr, close: () => client.close() }), pid: transport.pid }
}

/** The name the minimal configuration is written out under: its text's hash. */
const shippedConfig = readFileSync(join(root, "share", "tmux-minimal.conf"), "utf8")
const configName = `tmux-minimal-${createHash("sha256").update(shippedConfig).digest("hex").slice(0, 12)}.conf`

describe("the single executable", () => {
  it("prints its version, its help and a client entry that runs it, with no Node on PATH", () => {
    const env = binaryEnv(h.world())
    const run = (...args: Array<string>) => spawnSync(binary, args, { env, encoding: "utf8" })
    assert.strictEqual(run("--version").stdout, `libtmux-mcp ${version}\n`)
    const help = run("--help")
    assert.strictEqual(help.status, 0)
    assert.include(help.stdout, "Usage: libtmux-mcp [flags]")
    assert.notInclude(help.stdout, "checkout")
    const printed = run("--print-config", "cursor", "--toolsets", "inspect")
    assert.deepStrictEqual(JSON.parse(printed.stdout).mcpServers["libtmux-mcp"], {
      command: binary,
      args: [],
      env: { LIBTMUX_TOOLSETS: "inspect" }
    })
    // A lock folder others can enter: no configuration is written there, and the server does not start.
    const locks = join(env.TMUX_TMPDIR!, `tmux-${process.getuid?.() ?? 0}`, "libtmux-mcp-locks")
    mkdirSync(locks, { recursive: true, mode: 0o700 })
    chmodSync(locks, 0o755)
    const refused = spawnSync(binary, [], { env, encoding: "utf8", input: "" })
    assert.strictEqual(refused.status, 1)
    assert.include(
      refused.stderr,
      "LIBTMUX_TMUX_CONFIG minimal: the executable's minimal configuration has no file " +
        `(${locks} has mode 755; it must be 0700); give a readable regular file, or user`
    )
    assert.deepStrictEqual(readdirSync(locks), [])
    const node = run("--print-config", "cursor", "--node", "/usr/bin/node")
    assert.strictEqual(node.status, 1)
    assert.include(node.stderr, "the single executable runs itself: leave out --node")
  })

  it("serves tools/list, a session in the embedded minimal configuration, a run and a regex search", async () => {
    const world = h.world()
    // A link planted where the configuration goes is replaced, never written through.
    const folder = join(world.dir, `tmux-${process.getuid?.() ?? 0}`, "libtmux-mcp-locks")
    mkdirSync(folder, { recursive: true, mode: 0o700 })
    const shipped = shippedConfig
    const file = join(folder, configName)
    writeFileSync(join(world.dir, "decoy"), "decoy\n")
    symlinkSync(join(world.dir, "decoy"), file)
    const { c, pid } = await serve(world, binaryEnv(world))
    const client = c.client
    // The server process's own PATH (a pane's login shell sets its own).
    const path = readFileSync(`/proc/${pid}/environ`, "utf8").split("\0").find((entry) => entry.startsWith("PATH="))
    assert.strictEqual(path, `PATH=${join(world.dir, "bin")}`)
    assert.deepStrictEqual(readdirSync(join(world.dir, "bin")).sort(), ["id", "sh", "tmux"])

    const listed = (await client.listTools()).tools.map((tool) => tool.name).sort()
    assert.deepStrictEqual(listed, [...modelToolNames].sort())

    const session = structured(await call(c, "create_session", { session_name: "sea", width: 100, height: 30 }))
    // The minimal configuration, written out from the executable's asset: its record and its pager setting.
    assert.strictEqual(
      world.tmux("libtmux-mcp", "show-options", "-sv", "@libtmux-mcp-started-by").trim(),
      "libtmux-mcp minimal"
    )
    assert.strictEqual(world.tmux("libtmux-mcp", "show-environment", "-g", "PAGER").trim(), "PAGER=cat")
    assert.deepStrictEqual(readdirSync(folder).filter((name) => name.startsWith("tmux-minimal-")), [basename(file)])
    assert.isTrue(lstatSync(file).isFile())
    assert.strictEqual(readFileSync(file, "utf8"), shipped)
    assert.strictEqual(lstatSync(file).mode & 0o777, 0o600)
    assert.strictEqual(statSync(folder).mode & 0o777, 0o700)
    assert.strictEqual(readFileSync(join(world.dir, "decoy"), "utf8"), "decoy\n")
    // No compile cache folder: the executable's code cache is inside it.
    assert.isFalse(existsSync(join(world.dir, "cache")))

    const pane = session.pane_id as string
    const ran = structured(
      await call(c, "run_shell_command", { pane_id: pane, command: "echo sea-$((6 * 7))" })
    )
    assert.strictEqual(ran.output, "sea-42")
    assert.strictEqual(ran.exit_status, 0)

    // The output's line only: the typed command holds `sea-$((6 * 7))`.
    const found = structured(await call(c, "search_panes", { pattern: "sea-4\\d$", regex: true }))
    assert.strictEqual(found.panes_matched, 1)
    assert.strictEqual(found.matches[0].lines.length, 1)
    assert.match(found.matches[0].lines[0], /sea-42$/u)
    const invalid = await call(c, "search_panes", { pattern: "(?=x)", regex: true })
    assert.strictEqual(invalid._meta?.["com.git-pull.libtmux-mcp/error"], "PatternInvalid")
    assert.include(textOf(invalid), "RE2 syntax")
  })

  withStranger(
    "refuses an XDG_RUNTIME_DIR of another user, naming it and what to set, and writes nothing there",
    () => {
      const world = h.world()
      // As after `su` without `-`: the variable still names the other user's folder, of mode 0700.
      const runtime = join(world.dir, "runtime")
      mkdirSync(runtime, { mode: 0o700 })
      chownSync(runtime, stranger, stranger)
      const refused = spawnSync(binary, [], {
        env: { ...binaryEnv(world), XDG_RUNTIME_DIR: runtime },
        encoding: "utf8",
        input: ""
      })
      assert.strictEqual(refused.status, 1, refused.stderr)
      assert.include(refused.stderr, `folder ${runtime} on the way to the lock folder belongs to uid ${stranger}`)
      assert.include(refused.stderr, "set XDG_RUNTIME_DIR to a folder of yours")
      assert.deepStrictEqual(readdirSync(runtime), [])
    }
  )

  it("starts tmux with the configuration checked at startup, not a file swapped in after it", async () => {
    const world = h.world()
    const { c } = await serve(world, binaryEnv(world))
    const file = join(world.dir, `tmux-${process.getuid?.() ?? 0}`, "libtmux-mcp-locks", configName)
    assert.strictEqual(readFileSync(file, "utf8"), shippedConfig)
    // Swapped after startup: a new file, owner-only, under the same name.
    const marker = join(world.dir, "planted-ran")
    writeFileSync(`${file}.planted`, `set -g @planted yes\nrun-shell 'touch ${marker}'\n`, { mode: 0o600 })
    renameSync(`${file}.planted`, file)
    for (const name of ["first", "second"]) {
      // The second starts a server again: the checked file is read afresh, from its start.
      if (name === "second") world.tmux("libtmux-mcp", "kill-server")
      const created = structured(await call(c, "create_session", { session_name: name }))
      assert.isTrue(created.server_started)
      assert.strictEqual(
        world.tmux("libtmux-mcp", "show-options", "-sv", "@libtmux-mcp-started-by").trim(),
        "libtmux-mcp minimal"
      )
      assert.strictEqual(world.tmux("libtmux-mcp", "show-environment", "-g", "PAGER").trim(), "PAGER=cat")
      assert.notInclude(world.tmux("libtmux-mcp", "show-options", "-g"), "@planted")
      assert.isFalse(existsSync(marker))
    }
  })
})
