/**
 * `--print-config … --ssh`: the ssh command line, the remote command's quoting, and the refusals.
 */
import * as Result from "effect/Result"
import { assert, describe, it } from "vitest"
import { sshCommand } from "../../src/domain/clientConfig.ts"
import { parseInvocation } from "../../src/domain/config.ts"

const invoke = (...argv: Array<string>) => parseInvocation({}, argv)

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
      "env LIBTMUX_TOOLSETS=inspect 'LIBTMUX_SOCKET=path:/tmp/a b' node '/opt/it'\\''s/libtmux-mcp.js'"
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
        command: ["node", "/src/dist/libtmux-mcp.js"]
      }
    )
  })

  it("refuses a host ssh or a shell would read as more, inherit across ssh, and remote flags out of place", () => {
    for (
      const [argv, words] of [
        [["--print-config", "cursor", "--ssh", "box; rm -rf ~"], "[user@]host[:port]"],
        [["--print-config", "cursor", "--ssh", "-oProxyCommand=x"], "[user@]host[:port]"],
        [["--print-config", "cursor", "--ssh", "box:99999"], "[user@]host[:port]"],
        [["--print-config", "cursor", "--ssh", "box", "--socket", "inherit"], "cannot cross ssh"],
        [["--print-config", "cursor", "--remote-bin", "/x"], "goes with --ssh"],
        [["--ssh", "box"], "goes with --print-config"]
      ] as const
    ) {
      const result = invoke(...argv)
      assert.isTrue(Result.isFailure(result), argv.join(" "))
      if (Result.isFailure(result)) assert.include(result.failure.message, words)
    }
  })
})
