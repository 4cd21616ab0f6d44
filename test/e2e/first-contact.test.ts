/**
 * First contact through the SDK client: the instructions, the one resource, the capability
 * records in tools/list, the attach command under an awkward TMUX_TMPDIR, and --print-config.
 */
import { McpError } from "@modelcontextprotocol/sdk/types.js"
import { execFileSync } from "node:child_process"
import { mkdirSync, realpathSync, symlinkSync, writeFileSync } from "node:fs"
import { join } from "node:path"
import { assert, describe, it } from "vitest"
import { shellQuote } from "../../src/domain/quote.ts"
import { capabilityMetaKey } from "../../src/manifest/index.ts"
import { harness } from "../support/harness.ts"
import { binPath, call, runToExit, structured } from "../support/mcp.ts"
import { until } from "../support/poll.ts"

// What startup discloses is the same in process (src/serving.ts); the configuration --print-config
// prints is started as a client starts it, and surface.test.ts reads the ready line of the bin.
const h = harness("contact", { inProcess: true })
const bin = harness("contact")

describe("instructions", () => {
  it("name the pinned socket and the attach command the user can paste", async () => {
    const world = h.world()
    const c = await h.connect(world)
    const text = c.client.getInstructions() ?? ""
    assert.include(text, "name:libtmux-mcp")
    assert.include(text, `tmux -N -S ${shellQuote(world.socketPath("libtmux-mcp"))} attach`)
    assert.include(text, "Enabled toolsets: inspect, manage, execute, teardown.")
    assert.isAtMost(Buffer.byteLength(text), 2048)
  })
})

describe("tmux://capabilities", () => {
  it(
    "is the only resource, has no templates, and reports the " +
      "startup-filtered surface with the same records as tools/list",
    async () => {
      const world = h.world()
      const c = await h.connect(world, { LIBTMUX_TOOLSETS: "inspect", LIBTMUX_EXCLUDE_TOOLS: "get_pane_info" })
      const resources = (await c.client.listResources()).resources
      assert.deepStrictEqual(resources.map((resource) => resource.uri), ["tmux://capabilities"])
      assert.deepStrictEqual((await c.client.listResourceTemplates()).resourceTemplates, [])
      const read = await c.client.readResource({ uri: "tmux://capabilities" })
      const content = read.contents[0]!
      assert.strictEqual(content.mimeType, "application/json")
      const document = JSON.parse("text" in content ? content.text : "{}")
      const tools = (await c.client.listTools()).tools
      assert.deepStrictEqual(document.tools.map((tool: { name: string }) => tool.name), tools.map((tool) => tool.name))
      for (const tool of tools) {
        const { name: _name, title: _title, ...record } = document.tools.find((entry: { name: string }) =>
          entry.name === tool.name
        )
        assert.deepStrictEqual(record, tool._meta?.[capabilityMetaKey], tool.name)
      }
      assert.deepStrictEqual(document.socket, {
        selector: "name:libtmux-mcp",
        form: "name",
        resolved_socket_path: world.socketPath("libtmux-mcp"),
        attach_command: `tmux -N -S ${shellQuote(world.socketPath("libtmux-mcp"))} attach`
      })
      assert.strictEqual(document.server_state, "absent")
      assert.isNull(document.default_applied)
      assert.deepStrictEqual(document.toolsets, ["inspect"])
      assert.strictEqual(document.host_command_tools, 0)
      assert.strictEqual(document.command_capable, false)
    }
  )

  it("reports the default that applied and why", async () => {
    const world = h.world()
    world.tmux("libtmux-mcp", "new-session", "-d")
    const c = await h.connect(world)
    const read = await c.client.readResource({ uri: "tmux://capabilities" })
    const document = JSON.parse("text" in read.contents[0]! ? read.contents[0].text : "{}")
    assert.deepStrictEqual(document.default_applied, {
      toolsets: ["inspect", "manage", "execute"],
      reason: "existing server of unknown provenance"
    })
    assert.strictEqual(document.configuration_provenance, "unknown")
  })

  it("answers an unknown resource with a not-found error", async () => {
    const c = await h.connect(h.world())
    const error = await c.client.readResource({ uri: "tmux://pane/%0" }).then(() => undefined, (e: unknown) => e)
    assert.instanceOf(error, McpError)
    assert.strictEqual((error as McpError).code, -32002)
  })
})

describe("attach command", () => {
  it("pastes correctly into a shell when TMUX_TMPDIR holds spaces and quotes", async () => {
    const world = h.world()
    const awkward = join(world.dir, `it's "odd" here`)
    mkdirSync(awkward)
    const c = await h.connect(world, { TMUX_TMPDIR: awkward })
    structured(await call(c, "create_session", { session_name: "watched" }))
    const line = c.stderr().split("\n").find((l) => l.startsWith("libtmux-mcp ready"))!
    const attach = JSON.parse(/attach_command=(".*")$/u.exec(line)![1]!) as string
    const listed = execFileSync("sh", ["-c", attach.replace(/ attach$/u, " list-sessions -F '#{session_name}'")], {
      encoding: "utf8"
    })
    assert.strictEqual(listed.trim(), "watched")
    execFileSync("sh", ["-c", attach.replace(/ attach$/u, " kill-server")])
  })
})

describe("startup warning", () => {
  it("adds a separate warning line on an inherited socket", async () => {
    const world = h.world()
    const c = await h.connect(world, { LIBTMUX_SOCKET: "inherit" })
    await c.client.listTools()
    const lines = c.stderr().split("\n")
    assert.strictEqual(lines.filter((line) => line.startsWith("libtmux-mcp ready")).length, 1)
    assert.include(lines.find((line) => line.startsWith("libtmux-mcp warning:")), "socket=inherit")
  })
})

describe("a person at a terminal", () => {
  it("started on a terminal, says it waits for an MCP client and where help is", async () => {
    const world = h.world()
    world.tmux("term", "new-session", "-d", "-x", "200", "-y", "20", `${process.execPath} ${binPath}`)
    const screen = await until(
      "the server's words on the terminal",
      () => world.tmux("term", "capture-pane", "-p", "-J"),
      (
        text
      ) => text.includes("waiting for an MCP client")
    )
    assert.include(screen, "waiting for an MCP client on stdin")
    assert.include(screen, "--help")
  })

  it("says a JSON-RPC error's code once, leaving the prefix to the client", async () => {
    const c = await h.connect(h.world())
    const error = await c.client.callTool({ name: "no_such_tool", arguments: {} }).catch((caught: unknown) => caught)
    assert.instanceOf(error, McpError)
    assert.strictEqual((error as McpError).message.split("MCP error").length - 1, 1, (error as McpError).message)
  })
})

describe("startup warnings", () => {
  it("name the real variable a misspelt LIBTMUX_ one was probably meant to be, after the ready line", async () => {
    const world = h.world()
    const c = await h.connect(world, { LIBTMUX_WAIT_MAX_SECONDS: "60" })
    await c.client.listTools()
    const lines = c.stderr().split("\n")
    const warning = lines.findIndex((line) => line.includes("variable=LIBTMUX_WAIT_MAX_SECONDS"))
    assert.isAbove(warning, lines.findIndex((line) => line.startsWith("libtmux-mcp ready ")))
    assert.include(lines[warning], "did you mean LIBTMUX_MCP_WAIT_MAX_SECONDS?")
    await c.close()
  })
})

describe("--print-config", () => {
  const clients = ["claude-code", "claude-desktop", "codex", "gemini", "cursor", "vscode"] as const
  for (const client of clients) {
    it(`prints a ${client} configuration with absolute paths and the given settings`, async () => {
      const world = h.world()
      const result = await runToExit(world, {}, [
        "--print-config",
        client,
        "--toolsets",
        "inspect,execute",
        "--socket",
        "agents"
      ])
      assert.strictEqual(result.code, 0, result.stderr)
      // Where it goes is said on stderr, so stdout is nothing but the configuration.
      assert.match(result.stderr, /libtmux-mcp: (run this command|merge into \S+)/u)
      assert.notInclude(result.stdout, "merge into")
      assert.include(result.stdout, process.execPath)
      assert.include(result.stdout, realpathSync(binPath))
      assert.include(result.stdout, "inspect,execute")
      assert.include(result.stdout, "LIBTMUX_SOCKET")
      if (!["claude-code", "codex"].includes(client)) {
        const parsed = JSON.parse(result.stdout)
        const entry = (parsed.mcpServers ?? parsed.servers)["libtmux-mcp"]
        assert.deepStrictEqual(entry.args, [realpathSync(binPath)])
        assert.deepStrictEqual(entry.env, { LIBTMUX_TOOLSETS: "inspect,execute", LIBTMUX_SOCKET: "agents" })
      }
    })
  }

  it("turns --socket inherit, run inside tmux, into the path of that tmux server, and says why", async () => {
    const world = h.world()
    const socket = join(world.dir, "outer.sock")
    const result = await runToExit(world, { TMUX: `${socket},123,0` }, [
      "--print-config",
      "cursor",
      "--socket",
      "inherit"
    ])
    assert.strictEqual(result.code, 0, result.stderr)
    assert.deepStrictEqual(JSON.parse(result.stdout).mcpServers["libtmux-mcp"].env, {
      LIBTMUX_SOCKET: `path:${socket}`
    })
    assert.include(result.stderr, "clients do not pass TMUX")
  })

  it("keeps --socket inherit outside tmux, and warns on stderr that it will reach tmux's default socket", async () => {
    const world = h.world()
    const result = await runToExit(world, {}, ["--print-config", "cursor", "--socket", "inherit"])
    assert.strictEqual(result.code, 0, result.stderr)
    assert.deepStrictEqual(JSON.parse(result.stdout).mcpServers["libtmux-mcp"].env, { LIBTMUX_SOCKET: "inherit" })
    assert.include(result.stderr, "ran outside tmux")
    assert.include(result.stderr, "tmux's default socket")
  })

  it("refuses an unknown client or an invalid setting, naming the valid set", async () => {
    const world = h.world()
    const unknown = await runToExit(world, {}, ["--print-config", "emacs"])
    assert.strictEqual(unknown.code, 1)
    assert.include(unknown.stderr, "valid clients: claude-code")
    const invalid = await runToExit(world, {}, ["--print-config", "cursor", "--toolsets", "all"])
    assert.strictEqual(invalid.code, 1)
    assert.include(invalid.stderr, "valid toolsets")
  })

  it("--node: prints the Node named, after checking that it exists, runs and is new enough", async () => {
    const world = h.world()
    const chosen = await runToExit(world, {}, ["--print-config", "cursor", "--node", process.execPath])
    assert.strictEqual(chosen.code, 0, chosen.stderr)
    assert.strictEqual(JSON.parse(chosen.stdout).mcpServers["libtmux-mcp"].command, process.execPath)
    const old = join(world.dir, "node20")
    writeFileSync(old, "#!/bin/sh\necho v20.0.0\n", { mode: 0o755 })
    const other = join(world.dir, "other")
    writeFileSync(other, "#!/bin/sh\necho other 1.0\n", { mode: 0o755 })
    for (
      const [path, words] of [
        [join(world.dir, "missing"), "does not exist or cannot be run"],
        [other, "printed \"other 1.0\" for --version, not a Node version"],
        [old, "is Node 20.0.0; libtmux-mcp needs Node >= 22.19.0"]
      ] as const
    ) {
      const refused = await runToExit(world, {}, ["--print-config", "cursor", "--node", path])
      assert.strictEqual(refused.code, 1, path)
      assert.strictEqual(refused.stdout, "")
      assert.strictEqual(refused.stderr.trim().split("\n").length, 1, refused.stderr)
      assert.include(refused.stderr, words)
    }
  })

  it("says how to pick another Node when this one sits in a cache folder", async () => {
    const world = h.world()
    const cached = join(world.dir, ".cache", "node", "bin")
    mkdirSync(cached, { recursive: true })
    symlinkSync(process.execPath, join(cached, "node"))
    const result = await runToExit(world, {}, ["--print-config", "cursor", "--node", join(cached, "node")])
    assert.strictEqual(result.code, 0, result.stderr)
    assert.include(result.stderr, "is in a cache folder")
    assert.include(result.stderr, "name it with --node PATH")
  })

  it("prints a configuration whose server starts and answers", async () => {
    const world = h.world()
    const result = await runToExit(world, {}, ["--print-config", "cursor", "--toolsets", "inspect"])
    const entry = JSON.parse(result.stdout).mcpServers["libtmux-mcp"]
    const c = await bin.connect(world, entry.env)
    assert.include((await c.client.listTools()).tools.map((tool) => tool.name), "list_sessions")
  })
})
