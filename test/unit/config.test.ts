/**
 * Startup configuration parsing: variables, flags (a flag beats its variable), ranges and errors.
 */
import * as Result from "effect/Result"
import { readdirSync, readFileSync } from "node:fs"
import { assert, describe, it } from "vitest"
import { type Invocation, type ServerConfig, settings } from "../../src/domain/config.ts"
import { invoke } from "../support/invocation.ts"

const serve = (env: Record<string, string>, argv: ReadonlyArray<string> = []): ServerConfig => {
  const result = invoke(env, argv)
  if (Result.isFailure(result)) throw new Error(result.failure.message)
  const invocation: Invocation = result.success
  assert.strictEqual(invocation.kind, "serve")
  return (invocation as Extract<Invocation, { kind: "serve" }>).config
}
const error = (env: Record<string, string>, argv: ReadonlyArray<string> = []): string => {
  const result = invoke(env, argv)
  assert.isTrue(Result.isFailure(result))
  return Result.isFailure(result) ? result.failure.message : ""
}

describe("the README's configuration table", () => {
  it("has one row per setting, with its variable and flag, and no other", () => {
    const readme = readFileSync(new URL("../../README.md", import.meta.url), "utf8")
    const rows = [...readme.matchAll(/^\| `(LIBTMUX_[A-Z_]+)` \| `(--[a-z-]+)` \|/gmu)].map((
      [, name, flag]
    ) => [name, flag])
    assert.deepStrictEqual(rows, settings.map((setting) => [setting.variable, setting.flag]))
  })
})

describe("the docs' client entries", () => {
  // A client starts the server without TMUX: an entry with inherit reaches tmux's default socket, not
  // the server the reader sits in, so an example entry names the socket with path: instead.
  it("name a socket to reach rather than set LIBTMUX_SOCKET to inherit", () => {
    const pages = ["README.md", ...readdirSync(new URL("../../docs/", import.meta.url)).map((name) => `docs/${name}`)]
      .filter((page) => page.endsWith(".md"))
    const entries = pages.filter((page) =>
      /"LIBTMUX_SOCKET":\s*"inherit"/u.test(readFileSync(new URL(`../../${page}`, import.meta.url), "utf8"))
    )
    assert.deepStrictEqual(entries, [])
  })
})

describe("defaults", () => {
  it("pins name:libtmux-mcp with the minimal configuration, a 30 s ceiling and history suppression on", () => {
    const config = serve({})
    assert.deepStrictEqual(config.socket, { form: "name", name: "libtmux-mcp" })
    assert.isFalse(config.socketExplicit)
    assert.deepStrictEqual(config.tmuxConfig, { kind: "minimal" })
    assert.strictEqual(config.waitMaxSeconds, 30)
    assert.isTrue(config.suppressHistory)
    assert.strictEqual(config.tmuxBin, "tmux")
    assert.deepStrictEqual(config.selection, { toolsets: undefined, tools: undefined, excludeTools: undefined })
  })
})

describe("flags", () => {
  it("mirrors every variable with a flag, in both --flag value and --flag=value forms, and lets the flag win", () => {
    const config = serve(
      { LIBTMUX_SOCKET: "a", LIBTMUX_TOOLSETS: "inspect", LIBTMUX_MCP_WAIT_MAX_SECONDS: "5" },
      [
        "--socket",
        "b",
        "--toolsets=",
        "--tools",
        "list_sessions",
        "--exclude-tools=list_windows",
        "--wait-max-seconds",
        "110",
        "--suppress-history=0",
        "--tmux-bin",
        "/usr/bin/tmux",
        "--tmux-config",
        "user"
      ]
    )
    assert.deepStrictEqual(config.socket, { form: "name", name: "b" })
    assert.deepStrictEqual(config.selection, { toolsets: "", tools: "list_sessions", excludeTools: "list_windows" })
    assert.strictEqual(config.waitMaxSeconds, 110)
    assert.isFalse(config.suppressHistory)
    assert.strictEqual(config.tmuxBin, "/usr/bin/tmux")
    assert.deepStrictEqual(config.tmuxConfig, { kind: "user" })
  })

  it("answers --help and --version before reading any variable", () => {
    assert.deepStrictEqual(Result.getOrThrow(invoke({ LIBTMUX_SAFETY: "x" }, ["--help"])), { kind: "help" })
    assert.deepStrictEqual(Result.getOrThrow(invoke({}, ["-V"])), { kind: "version" })
    assert.deepStrictEqual(Result.getOrThrow(invoke({}, ["-v"])), { kind: "version" })
  })

  it("rejects unknown flags and flags without a value, naming the valid flags", () => {
    assert.include(error({}, ["--toolset", "inspect"]), "valid flags: --socket")
    assert.include(error({}, ["--socket"]), "--socket needs a value")
  })
})

describe("values", () => {
  it("accepts wait ceilings from 1 to 110 seconds and nothing else, saying why not 120", () => {
    assert.strictEqual(serve({ LIBTMUX_MCP_WAIT_MAX_SECONDS: "1" }).waitMaxSeconds, 1)
    assert.strictEqual(serve({ LIBTMUX_MCP_WAIT_MAX_SECONDS: "2.5" }).waitMaxSeconds, 2.5)
    assert.strictEqual(serve({ LIBTMUX_MCP_WAIT_MAX_SECONDS: "110" }).waitMaxSeconds, 110)
    for (const value of ["0", "0.5", "110.5", "120", "121", "-1", "", "NaN", "Infinity", "30s"]) {
      assert.include(error({ LIBTMUX_MCP_WAIT_MAX_SECONDS: value }), "from 1 to 110", value)
    }
    assert.include(error({ LIBTMUX_MCP_WAIT_MAX_SECONDS: "120" }), "Claude Code moves it to the background")
  })

  it("refuses LIBTMUX_SAFETY even when empty, naming the toolset mapping", () => {
    for (const value of ["", "readonly", "destructive"]) {
      const message = error({ LIBTMUX_SAFETY: value })
      assert.include(message, "LIBTMUX_TOOLSETS")
      assert.include(message, "mutating -> inspect,manage,execute")
    }
  })

  it("refuses the predecessor's other variables even when empty, naming their replacement", () => {
    assert.include(error({ LIBTMUX_SOCKET_PATH: "/run/agent.sock" }), "use LIBTMUX_SOCKET=path:/run/agent.sock instead")
    assert.include(error({ LIBTMUX_SOCKET_PATH: "" }), "use LIBTMUX_SOCKET=path:/absolute/socket instead")
    assert.include(error({ LIBTMUX_MCP_PROMPTS_AS_TOOLS: "1" }), "prompts were removed")
  })

  it("takes minimal, user or an absolute path for LIBTMUX_TMUX_CONFIG, and refuses it with inherit", () => {
    assert.deepStrictEqual(serve({ LIBTMUX_TMUX_CONFIG: "/etc/tmux.agent.conf" }).tmuxConfig, {
      kind: "path",
      path: "/etc/tmux.agent.conf"
    })
    assert.include(error({ LIBTMUX_TMUX_CONFIG: "relative.conf" }), "minimal, user, or an absolute path")
    assert.include(error({ LIBTMUX_SOCKET: "inherit", LIBTMUX_TMUX_CONFIG: "minimal" }), "unset LIBTMUX_TMUX_CONFIG")
  })

  it("takes 1 or 0 for LIBTMUX_SUPPRESS_HISTORY", () => {
    assert.isFalse(serve({ LIBTMUX_SUPPRESS_HISTORY: "0" }).suppressHistory)
    assert.include(error({ LIBTMUX_SUPPRESS_HISTORY: "true" }), "use 1")
  })

  it("takes [user@]host[:port] for LIBTMUX_WATCH_SSH with an absolute ssh config; refuses what reads as more", () => {
    assert.isUndefined(serve({}).watchSsh)
    assert.deepStrictEqual(
      serve({}, ["--watch-ssh", "me@build-box:2222", "--watch-ssh-config=/home/me/my ssh/config"]).watchSsh,
      { destination: "me@build-box", port: 2222, sshConfig: "/home/me/my ssh/config" }
    )
    assert.deepStrictEqual(serve({ LIBTMUX_WATCH_SSH: "box" }).watchSsh, {
      destination: "box",
      port: undefined,
      sshConfig: undefined
    })
    const grammar = "use [user@]host[:port] (letters, digits, . _ -; port 1-65535)"
    assert.include(
      error({ LIBTMUX_WATCH_SSH: "-oProxyCommand=touch x" }),
      `LIBTMUX_WATCH_SSH "-oProxyCommand=touch x" is not valid: it starts with -, which ssh would read as an ` +
        `option; ${grammar}`
    )
    assert.include(error({ LIBTMUX_WATCH_SSH: "box\\x" }), "a backslash")
    assert.include(error({ LIBTMUX_WATCH_SSH: "box\nx" }), "a control character")
    for (const bad of ["box;reboot", "me@", "box:0", "box:70000", "a b", ""]) {
      assert.include(error({ LIBTMUX_WATCH_SSH: bad }), grammar, bad)
    }
    assert.include(error({ LIBTMUX_WATCH_SSH_CONFIG: "/x" }), "goes with LIBTMUX_WATCH_SSH")
    for (const bad of ["relative/config", "-F", "/a\\b", "/a\tb"]) {
      assert.include(
        error({ LIBTMUX_WATCH_SSH: "box", LIBTMUX_WATCH_SSH_CONFIG: bad }),
        "give the absolute path of the agent machine's ssh client configuration file",
        bad
      )
    }
  })

  it("marks any given socket as explicit, even the default's own name", () => {
    assert.isTrue(serve({ LIBTMUX_SOCKET: "libtmux-mcp" }).socketExplicit)
  })
})
