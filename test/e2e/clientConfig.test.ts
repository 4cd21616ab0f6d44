/**
 * `--print-config … --ssh`: the ssh command line, the remote command's quoting, and the refusals.
 */
import * as Result from "effect/Result"
import { execFileSync } from "node:child_process"
import { existsSync, mkdirSync, mkdtempSync, readdirSync, rmSync, writeFileSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { assert, describe, it } from "vitest"
import { sshCommand } from "../../src/domain/clientConfig.ts"
import { invoke as parse } from "../support/invocation.ts"

const invoke = (...argv: Array<string>) => parse({}, argv)

describe("--print-config --ssh", () => {
  it("starts the server through ssh without a terminal or prompts, with settings quoted for the remote shell", () => {
    const { command, args } = sshCommand(
      {
        destination: "me@box",
        port: 2222,
        sshConfig: "/tmp/ssh config",
        command: ["node", "/opt/it's/libtmux-mcp.js"]
      },
      { LIBTMUX_TOOLSETS: "inspect", LIBTMUX_SOCKET: "path:/tmp/a b" }
    )
    assert.strictEqual(command, "ssh")
    assert.deepStrictEqual(args.slice(0, 7), [
      "-T",
      "-o",
      "BatchMode=yes",
      "-o",
      "ServerAliveInterval=15",
      "-o",
      "ServerAliveCountMax=3"
    ])
    assert.deepStrictEqual(args.slice(7, 13), ["-F", "/tmp/ssh config", "-p", "2222", "--", "me@box"])
    assert.strictEqual(
      args[13],
      `env 'LIBTMUX_TOOLSETS=inspect' 'LIBTMUX_SOCKET=path:/tmp/a b' 'node' '/opt/it'"'"'s/libtmux-mcp.js'`
    )
  })

  it("runs the installed bin by default, and Node with a checkout's bin when one is named", () => {
    const installed = invoke("--print-config", "cursor", "--ssh", "box")
    assert.deepStrictEqual(
      Result.isSuccess(installed) && installed.success.kind === "print-config"
        ? installed.success.remote?.command
        : undefined,
      ["libtmux-mcp"]
    )
    const checkout = invoke("--print-config", "cursor", "--ssh", "box:22", "--remote-bin", "/src/dist/libtmux-mcp.js")
    assert.deepStrictEqual(
      Result.isSuccess(checkout) && checkout.success.kind === "print-config" ? checkout.success.remote : undefined,
      {
        destination: "box",
        port: 22,
        sshConfig: undefined,
        command: ["node", "/src/dist/libtmux-mcp.js"],
        binary: false
      }
    )
  })

  it("runs the single executable itself when --remote-binary names it, and refuses a Node or bin beside it", () => {
    const binary = invoke("--print-config", "cursor", "--ssh", "box", "--remote-binary", "/opt/libtmux-mcp")
    const remote = Result.isSuccess(binary) && binary.success.kind === "print-config"
      ? binary.success.remote
      : undefined
    assert.deepStrictEqual([remote?.command, remote?.binary], [["/opt/libtmux-mcp"], true])
    assert.deepStrictEqual(sshCommand(remote!, {}).args.at(-1), "'/opt/libtmux-mcp'")
    for (const [flag, value] of [["--remote-node", "/usr/bin/node"], ["--remote-bin", "/src/dist/libtmux-mcp.js"]]) {
      const result = invoke("--print-config", "cursor", "--ssh", "box", "--remote-binary", "/opt/x", flag!, value!)
      assert.isTrue(Result.isFailure(result), flag)
      if (Result.isFailure(result)) {
        assert.strictEqual(
          result.failure.message,
          `--remote-binary names the single executable, which runs without Node; leave out ${flag}`
        )
      }
    }
  })

  it("refuses a host ssh or a shell would read as more, inherit across ssh, and remote flags out of place", () => {
    for (
      const [argv, words] of [
        [["--print-config", "cursor", "--ssh", "box; rm -rf ~"], "[user@]host[:port]"],
        [["--print-config", "cursor", "--ssh", "-oProxyCommand=x"], "[user@]host[:port]"],
        [["--print-config", "cursor", "--ssh", "box:99999"], "[user@]host[:port]"],
        [["--print-config", "cursor", "--ssh", "box", "--socket", "inherit"], "cannot cross ssh"],
        [["--print-config", "cursor", "--remote-bin", "/x"], "goes with --ssh"],
        [["--print-config", "cursor", "--remote-binary", "/x"], "goes with --ssh"],
        [["--ssh", "box"], "goes with --print-config"]
      ] as const
    ) {
      const result = invoke(...argv)
      assert.isTrue(Result.isFailure(result), argv.join(" "))
      if (Result.isFailure(result)) assert.include(result.failure.message, words)
    }
  })

  it("tells the remote server how this machine reaches it, for its watch_command, unless told otherwise", () => {
    const envOf = (...argv: Array<string>) => {
      const result = invoke("--print-config", "cursor", ...argv)
      return Result.isSuccess(result) && result.success.kind === "print-config" ? result.success.env : undefined
    }
    assert.deepStrictEqual(envOf("--ssh", "me@box:2222", "--ssh-config", "/home/me/my ssh/config"), {
      LIBTMUX_WATCH_SSH: "me@box:2222",
      LIBTMUX_WATCH_SSH_CONFIG: "/home/me/my ssh/config"
    })
    assert.deepStrictEqual(envOf("--ssh", "box", "--watch-ssh", "jump-alias"), { LIBTMUX_WATCH_SSH: "jump-alias" })
    assert.deepStrictEqual(envOf(), {})
    const refused = invoke("--print-config", "cursor", "--ssh", "box", "--watch-ssh", "-oProxyCommand=x")
    assert.isTrue(Result.isFailure(refused) && refused.failure.message.includes("starts with -"))
  })

  it("refuses remote words and settings with a backslash or a control character, naming what is valid", () => {
    for (
      const [argv, words] of [
        [["--remote-bin", "/x/\\'; touch m; '"], "without backslashes"],
        [["--remote-node", "/usr/bin/node\n"], "control character"],
        [["--remote-node", "-S touch m"], "starts with -"],
        [["--remote-binary", "-oProxyCommand=x"], "starts with -"],
        [["--socket", "path:/tmp/a\\'b"], "LIBTMUX_SOCKET"]
      ] as const
    ) {
      const result = invoke("--print-config", "cursor", "--ssh", "box", ...argv)
      assert.isTrue(Result.isFailure(result), argv.join(" "))
      if (Result.isFailure(result)) assert.include(result.failure.message, words)
    }
  })
})

// Issue 23, item 3: ssh hands the remote command to the host's login shell, whatever it is.
const loginShells = ["sh", "bash", "zsh", "dash", "fish"] as const
const shellPath = (name: string) => ["/usr/bin", "/bin"].map((dir) => join(dir, name)).find(existsSync)
const missing = loginShells.filter((name) => shellPath(name) === undefined)

describe("the printed remote command under every common login shell", () => {
  const title = "reads as the same words under sh, bash, zsh, dash and fish, or is refused, and runs nothing else"
  it.skipIf(missing.length > 0)(
    missing.length > 0 ? `${title} (skipped: ${missing.join(", ")} not installed; CI installs them)` : title,
    () => {
      const dir = mkdtempSync(join(tmpdir(), "libtmux-mcp-quote-"))
      try {
        const hostile = [
          "it's",
          "a\\'b; touch MARK; '",
          "$(touch MARK)",
          "`touch MARK`",
          "; touch MARK #",
          "' ; touch MARK ; '",
          "\"$(touch MARK)\"",
          "{a,b} ~ * ?",
          "%self =ls !! ^x",
          "$HOME (x) [y] & | < >"
        ]
        const home = join(dir, "home")
        mkdirSync(home)
        let accepted = 0
        for (const [index, value] of hostile.entries()) {
          const folder = join(dir, `bin ${index} ${value.replaceAll("/", "_")}`)
          const result = invoke(
            "--print-config",
            "cursor",
            "--ssh",
            "box",
            "--remote-node",
            process.execPath,
            "--remote-bin",
            join(folder, "argv.js"),
            "--socket",
            `path:/tmp/${value}`
          )
          if (Result.isFailure(result)) {
            assert.isTrue(value.includes("\\"), `refused ${JSON.stringify(value)}`)
            continue
          }
          accepted += 1
          assert.strictEqual(result.success.kind, "print-config")
          if (result.success.kind !== "print-config") continue
          mkdirSync(folder, { recursive: true })
          writeFileSync(
            join(folder, "argv.js"),
            "process.stdout.write(JSON.stringify([process.argv.slice(1), process.env.LIBTMUX_SOCKET]))"
          )
          const remote = sshCommandOf(result.success.remote!, result.success.env)
          for (const shell of loginShells) {
            const output = execFileSync(shellPath(shell)!, ["-c", remote], {
              cwd: dir,
              env: { PATH: process.env.PATH, HOME: home },
              encoding: "utf8"
            })
            assert.deepStrictEqual(
              JSON.parse(output),
              [[join(folder, "argv.js")], `path:/tmp/${value}`],
              `${shell} -c ${remote}`
            )
          }
        }
        assert.strictEqual(accepted, hostile.length - 1)
        assert.notInclude(readdirSync(dir), "MARK")
      } finally {
        rmSync(dir, { recursive: true, force: true })
      }
    },
    // 45 Node starts, one after another: minutes on a loaded machine, not the usual 30 s.
    180_000
  )
})

const sshCommandOf = (host: Parameters<typeof sshCommand>[0], env: Readonly<Record<string, string>>): string =>
  sshCommand(host, env).args.at(-1)!
