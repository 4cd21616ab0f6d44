/**
 * Every configuration `--print-config` prints is read by a real parser for its format (TOML for
 * Codex, JSON for the others, a POSIX shell and `claude mcp add`'s argument rules for Claude Code),
 * for a plain entry, a dotted host, an IP address with a port and a chosen name: entry names are
 * always ones every client takes.
 */
import * as Result from "effect/Result"
import { readFileSync } from "node:fs"
import { parse as parseToml } from "smol-toml"
import { assert, describe, it } from "vitest"
import { clientConfigNotes, clients, codexToolTimeout, renderClientConfig } from "../../src/domain/clientConfig.ts"
import type { PrintConfig } from "../../src/domain/printConfig.ts"
import { invoke } from "../support/invocation.ts"
import { wordsIn } from "../support/shells.ts"

const node = "/usr/bin/node"
const bin = "/home/you/src/libtmux-mcp/dist/libtmux-mcp.js"

const decide = (argv: ReadonlyArray<string>, cwd = "/home/you/work"): PrintConfig => {
  const result = invoke({}, argv, cwd)
  if (Result.isFailure(result)) throw new Error(result.failure.message)
  if (result.success.kind !== "print-config") throw new Error(result.success.kind)
  return result.success
}

interface Entry {
  readonly name: string
  readonly command: string
  readonly args: ReadonlyArray<string>
  readonly env: Readonly<Record<string, string>>
}

/** The words a POSIX shell makes of a command line. */
const shellWords = (line: string): Array<string> => wordsIn("sh", line)

/** `claude mcp add [options] <name> [options] -- <command> [args...]`, as its option parser reads it. */
const claudeMcpAdd = (line: string): Entry => {
  const words = shellWords(line)
  assert.deepStrictEqual(words.slice(0, 3), ["claude", "mcp", "add"])
  const env: Record<string, string> = {}
  let name: string | undefined
  let i = 3
  for (; i < words.length && words[i] !== "--"; i++) {
    const word = words[i]!
    if (word === "-e" || word === "--env") {
      // Variadic: values up to the next option; a name after them would be taken as one.
      for (; i + 1 < words.length && !words[i + 1]!.startsWith("-"); i++) {
        const [key, ...value] = words[i + 1]!.split("=")
        assert.match(key!, /^[A-Za-z_][A-Za-z0-9_]*$/u)
        env[key!] = value.join("=")
      }
    } else if (word === "-s" || word === "--scope") {
      assert.include(["local", "user", "project"], words[++i])
    } else {
      assert.notMatch(word, /^-/u, `unknown option ${word}`)
      assert.isUndefined(name, `a second positional ${word}`)
      name = word
    }
  }
  assert.strictEqual(words[i], "--", "the server's command follows --")
  assert.isDefined(name)
  return { name: name!, command: words[i + 1]!, args: words.slice(i + 2), env }
}

/** The one entry in a printed configuration, read by its format's parser. */
const readEntry = (config: PrintConfig, text: string): Entry => {
  if (config.client === "claude-code") return claudeMcpAdd(text)
  if (config.client === "codex") {
    const servers = parseToml(text).mcp_servers as Record<string, Record<string, unknown>>
    const names = Object.keys(servers)
    assert.lengthOf(names, 1, text)
    const entry = servers[names[0]!]!
    assert.strictEqual(entry.tool_timeout_sec, codexToolTimeout(config.waitMaxSeconds))
    return {
      name: names[0]!,
      command: entry.command as string,
      args: entry.args as Array<string>,
      env: (entry.env ?? {}) as Record<string, string>
    }
  }
  const parsed = JSON.parse(text)
  const servers = (config.client === "vscode" ? parsed.servers : parsed.mcpServers) as Record<string, Entry>
  const names = Object.keys(servers)
  assert.lengthOf(names, 1, text)
  const entry = servers[names[0]!]!
  return { name: names[0]!, command: entry.command, args: entry.args, env: entry.env ?? {} }
}

const cases: ReadonlyArray<readonly [string, ReadonlyArray<string>, string]> = [
  ["a plain entry", ["--toolsets", "inspect,execute", "--socket", "path:/tmp/a b"], "libtmux-mcp"],
  ["a dotted host", ["--ssh", "me@build.example.com"], "libtmux-mcp-build-example-com"],
  ["an IP address and a port", ["--ssh", "10.0.0.5:2222", "--socket", "agents"], "libtmux-mcp-10-0-0-5-2222"],
  ["a chosen name", ["--name", "tmux_live-2", "--socket", "inherit"], "tmux_live-2"],
  ["a chosen name over ssh", ["--ssh", "box.lan", "--name", "box"], "box"]
]

describe("printed configurations, read by each client's parser", () => {
  for (const client of Object.keys(clients)) {
    for (const [label, flags, name] of cases) {
      it(`${client}: ${label} gives an entry named ${name}`, () => {
        const config = decide(["--print-config", client, ...flags])
        const entry = readEntry(config, renderClientConfig(config, node, bin))
        assert.strictEqual(entry.name, name)
        assert.match(entry.name, /^[A-Za-z0-9_-]+$/u)
        if (config.remote === undefined) {
          assert.deepStrictEqual([entry.command, ...entry.args], [node, bin])
          assert.deepStrictEqual(entry.env, config.env)
        } else {
          assert.strictEqual(entry.command, "ssh")
          assert.strictEqual(entry.args.at(-2), config.remote.destination)
          assert.deepStrictEqual(entry.env, {})
        }
      })
    }
  }

  it("codex: the per-call timeout covers the configured wait ceiling, and never falls under Codex's 60 s", () => {
    for (const [ceiling, timeout] of [[undefined, 60], ["1", 60], ["45", 75], ["110", 140]] as const) {
      const config = decide([
        "--print-config",
        "codex",
        ...(ceiling === undefined ? [] : ["--wait-max-seconds", ceiling])
      ])
      const entry = (parseToml(renderClientConfig(config, node, bin)).mcp_servers as any)["libtmux-mcp"]
      assert.strictEqual(entry.tool_timeout_sec, timeout)
    }
  })
})

describe("TOML", () => {
  it("codex: a path holding a character JSON leaves as it is and TOML must escape (DEL) reads back whole", () => {
    const config = decide(["--print-config", "codex"])
    const odd = "/home/you/src\u007f/dist/libtmux-mcp.js"
    const text = renderClientConfig(config, node, odd)
    // TOML's basic strings may not hold U+007F as it is (Codex's parser refuses it; smol-toml's is lenient).
    assert.notInclude(text, "\u007f")
    assert.deepStrictEqual(readEntry(config, text).args, [odd])
  })
})

describe("notes on stderr", () => {
  it("claude-code: --scope user goes where the hint says, and the command still parses with it", () => {
    const config = decide(["--print-config", "claude-code", "--toolsets", "inspect"])
    assert.include(clientConfigNotes(config, node)[0], "put --scope user right after `claude mcp add`")
    const line = renderClientConfig(config, node, bin).replace(/^claude mcp add /u, "claude mcp add --scope user ")
    assert.deepStrictEqual(claudeMcpAdd(line).args, [bin])
  })

  it("--ssh: the one command that checks the remote Node, and the one that watches there", () => {
    const notes = clientConfigNotes(
      decide(["--print-config", "cursor", "--ssh", "me@box:2222", "--ssh-config", "/c", "--remote-node", "/opt/n"]),
      node
    )
    assert.include(notes, "libtmux-mcp: to check the remote Node: ssh -F /c -p 2222 me@box /opt/n --version")
    assert.include(
      notes,
      "libtmux-mcp: to watch there once the agent has a session: " +
        "ssh -t -F /c -p 2222 me@box tmux -N -L libtmux-mcp attach"
    )
    const plain = clientConfigNotes(decide(["--print-config", "cursor", "--ssh", "box"]), node)
    assert.include(plain, "libtmux-mcp: to check the remote Node: ssh box node --version")
    assert.include(plain[1], "the remote needs libtmux-mcp on its PATH: this package with Node >= 22.19.0, or the")
    const binary = clientConfigNotes(
      decide(["--print-config", "cursor", "--ssh", "box", "--remote-binary", "/o/l"]),
      node
    )
    assert.include(binary[1], "the remote needs the single executable at /o/l (no Node)")
    assert.include(binary, "libtmux-mcp: to check the remote executable: ssh box /o/l --version")
  })

  it("the single executable's own entry runs it with no arguments, and has no note about a Node in a cache", () => {
    const config = decide(["--print-config", "cursor"])
    const exe = "/home/you/.cache/libtmux-mcp"
    assert.deepStrictEqual(JSON.parse(renderClientConfig(config, exe, undefined)).mcpServers["libtmux-mcp"], {
      command: exe,
      args: []
    })
    assert.isFalse(clientConfigNotes(config, exe, true).some((note) => note.includes("cache folder")))
    assert.isTrue(clientConfigNotes(config, exe).some((note) => note.includes("cache folder")))
  })

  it("inherit outside tmux: says the entry's server will reach tmux's default socket, and how to name one", () => {
    const outside = clientConfigNotes(decide(["--print-config", "cursor", "--socket", "inherit"]), node)
    const warning = outside.find((note) => note.includes("inherit"))
    assert.isDefined(warning, outside.join("\n"))
    assert.include(warning, "ran outside tmux")
    assert.include(warning, "tmux's default socket")
    assert.include(warning, "--socket path:/PATH")
    // Inside tmux it became that server's path, with its own note, and no warning.
    const inside = invoke({ TMUX: "/tmp/tmux-1000/default,123,0" }, ["--print-config", "cursor", "--socket", "inherit"])
    assert.isTrue(Result.isSuccess(inside))
    if (Result.isSuccess(inside) && inside.success.kind === "print-config") {
      const notes = clientConfigNotes(inside.success, node)
      assert.isFalse(notes.some((note) => note.includes("outside tmux")), notes.join("\n"))
    }
  })

  it("claude-desktop: where the file is on Linux, macOS and Windows", () => {
    const [where] = clientConfigNotes(decide(["--print-config", "claude-desktop"]), node)
    for (const path of ["~/.config/Claude/", "~/Library/Application Support/Claude/", "%APPDATA%\\Claude\\"]) {
      assert.include(where, path)
    }
  })
})

describe("entry flags", () => {
  it("make a relative --ssh-config absolute, against the folder the command ran in", () => {
    const config = decide(["--print-config", "cursor", "--ssh", "box", "--ssh-config", "ssh/config"], "/home/you")
    assert.strictEqual(config.remote?.sshConfig, "/home/you/ssh/config")
    assert.include(renderClientConfig(config, node, bin), "\"/home/you/ssh/config\"")
  })

  it("refuse a --name a client would not take, and a wait ceiling out of range", () => {
    for (
      const [argv, words] of [
        [["--name", "my.box"], "1 to 64 letters, digits, - and _"],
        [["--name", ""], "1 to 64 letters"],
        [["--name", "x".repeat(65)], "1 to 64 letters"],
        [["--wait-max-seconds", "500"], "from 1 to 110"],
        [["--ssh", "box", "--node", "/usr/bin/node"], "--remote-node"]
      ] as const
    ) {
      const result = invoke({}, ["--print-config", "codex", ...argv])
      assert.isTrue(Result.isFailure(result), argv.join(" "))
      if (Result.isFailure(result)) assert.include(result.failure.message, words)
    }
  })
})

describe("--print-config with --host: one entry that runs the hub", () => {
  const hubFlags = [
    "--host",
    "build=me@build-box",
    "--host",
    "gpu=gpu.lan:2222",
    "--remote-node",
    "gpu=/usr/local/bin/node",
    "--remote-bin",
    "gpu=/opt/it's/libtmux-mcp.js",
    "--ssh-config",
    "ssh/hub config",
    "--host-toolsets",
    "gpu=inspect",
    "--no-local",
    "--toolsets",
    "inspect,execute"
  ]
  const served = (env: Readonly<Record<string, string>>, argv: ReadonlyArray<string>, cwd = "/home/you/work") => {
    const result = invoke(env, argv, cwd)
    if (Result.isFailure(result)) throw new Error(result.failure.message)
    if (result.success.kind !== "serve") throw new Error(result.success.kind)
    return result.success.config
  }

  for (const client of Object.keys(clients)) {
    it(`${client}: the entry starts this server with the hub's hosts, toolsets and flags, as given`, () => {
      const config = decide(["--print-config", client, ...hubFlags])
      const entry = readEntry(config, renderClientConfig(config, node, bin))
      assert.strictEqual(entry.name, "libtmux-mcp")
      assert.strictEqual(entry.command, node)
      assert.deepStrictEqual(entry.args, [
        bin,
        "--no-local",
        "--remote-node",
        "gpu=/usr/local/bin/node",
        "--remote-bin",
        "gpu=/opt/it's/libtmux-mcp.js",
        "--ssh-config",
        "/home/you/work/ssh/hub config"
      ])
      assert.deepStrictEqual(entry.env, {
        LIBTMUX_HOSTS: "build=me@build-box,gpu=gpu.lan:2222",
        LIBTMUX_HOST_TOOLSETS: "gpu=inspect",
        LIBTMUX_TOOLSETS: "inspect,execute"
      })
      // Started from any folder, the entry is the server the flags make here.
      const direct = served({}, hubFlags)
      const printed = served(entry.env, entry.args.slice(1), "/")
      assert.deepStrictEqual(printed.hosts, direct.hosts)
      assert.deepStrictEqual(printed.selection, direct.selection)
    })
  }

  it("prints per host the checks (ssh gets through, its Node, its server's version) as the hub reaches it", () => {
    const config = decide(["--print-config", "cursor", ...hubFlags])
    const notes = clientConfigNotes(config, node)
    assert.include(notes[1], "the entry runs a hub of build, gpu; each remote host needs ssh without a prompt")
    const check = (host: string, what: string) => {
      const line = notes.find((note) => note.startsWith(`libtmux-mcp: ${host} ${what}`))
      assert.isDefined(line, `${host} ${what}`)
      return shellWords(line!.replace(/^libtmux-mcp: [a-z]+ [^:]+: /u, ""))
    }
    const ssh = ["ssh", "-T", "-o", "BatchMode=yes", "-o", "ServerAliveInterval=15", "-o", "ServerAliveCountMax=3"]
    const gpu = [...ssh, "-F", "/home/you/work/ssh/hub config", "-p", "2222", "--", "gpu.lan"]
    assert.deepStrictEqual(check("gpu", "reachable"), [...gpu, "true"])
    assert.deepStrictEqual(check("gpu", "Node"), [...gpu, "'/usr/local/bin/node' '--version'"])
    // The server's check is the remote command the hub runs there, with --version: quoted for the host's shell.
    assert.deepStrictEqual(check("gpu", "server"), [
      ...gpu,
      `'/usr/local/bin/node' '/opt/it'"'"'s/libtmux-mcp.js' '--version'`
    ])
    const build = [...ssh, "-F", "/home/you/work/ssh/hub config", "--", "me@build-box"]
    assert.deepStrictEqual(check("build", "Node"), [...build, "'node' '--version'"])
    assert.deepStrictEqual(check("build", "server"), [...build, "'libtmux-mcp' '--version'"])
    // The remote shell reads the server check's last word as the hub's words.
    assert.deepStrictEqual(shellWords(check("gpu", "server").at(-1)!), [
      "/usr/local/bin/node",
      "/opt/it's/libtmux-mcp.js",
      "--version"
    ])
  })

  it("refuses --ssh and --remote-binary beside --host, and checks the hub's flags as serving does", () => {
    for (
      const [argv, words] of [
        [["--ssh", "box"], "--ssh goes with one host"],
        [["--remote-binary", "/o/l"], "--remote-binary goes with one host"],
        [["--host-toolsets", "dev=inspect"], "hosts: local, build"],
        [["--remote-bin", "dev=/x.js"], "names no declared host"]
      ] as const
    ) {
      const result = invoke({}, ["--print-config", "codex", "--host", "build=box", ...argv])
      assert.isTrue(Result.isFailure(result), argv.join(" "))
      if (Result.isFailure(result)) assert.include(result.failure.message, words)
    }
    // Without --host, a hub's own flags are refused, not left in the entry.
    for (const argv of [["--no-local"], ["--host-toolsets", "build=inspect"]]) {
      const result = invoke({}, ["--print-config", "codex", ...argv])
      assert.isTrue(Result.isFailure(result), argv.join(" "))
      if (Result.isFailure(result)) assert.include(result.failure.message, "goes with --host NAME=DESTINATION")
    }
  })
})

describe("docs/remote.md", () => {
  const page = readFileSync(new URL("../../docs/remote.md", import.meta.url), "utf8")
  /** The entry the page's `node dist/libtmux-mcp.js --print-config …` line prints. */
  const printedBy = (line: string) => {
    const config = decide(shellWords(line.replace(/^node dist\/libtmux-mcp\.js /u, "")))
    return readEntry(config, renderClientConfig(config, node, bin))
  }

  it("shows the remote mode's ssh command as the entry carries it, settings prefix included", () => {
    // The sh block with the command, the sentence, then the plain block with what it prints.
    const shown = new RegExp(
      "```sh\\n(node dist/libtmux-mcp\\.js --print-config [^\\n]*--ssh [^\\n]*)\\n```\\n\\n" +
        "prints a client entry whose command is\\n\\n```\\n([^\\n]+)\\n```",
      "u"
    ).exec(page)
    assert.isNotNull(shown, "the remote mode's first example")
    const entry = printedBy(shown![1]!)
    assert.deepStrictEqual(shellWords(shown![2]!), [entry.command, ...entry.args])
  })

  it("shows the single executable's remote command as the entry carries it", () => {
    const line = /^(node dist\/libtmux-mcp\.js --print-config [^\n]*--remote-binary [^\n]*)$/mu.exec(page)?.[1]
    const remote = /The remote command is then `([^`]+)`/u.exec(page)?.[1]
    assert.isDefined(line)
    assert.isDefined(remote)
    assert.strictEqual(remote, printedBy(line!).args.at(-1))
  })
})
