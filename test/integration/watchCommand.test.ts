import { assert, describe, it } from "vitest"
import { hostWatchCommandLine, watchCommandLine } from "../../src/domain/watchCommand.ts"
import { quotingShells, wordsIn } from "../support/shells.ts"

const parts = {
  entry: ["/opt/node 24/bin/node", "/home/o'neil/libtmux mcp/dist/libtmux-mcp.js"],
  tmuxPath: "/usr/bin/tmux",
  socketPath: "/run/user/1000/it's here/sock",
  runId: "3fa9c1",
  paneId: "%12"
}

describe("watch_command", () => {
  it("quotes every word so that sh, bash, dash, zsh and fish read the same words", () => {
    const line = watchCommandLine(parts)!
    const expected = [
      ...parts.entry,
      "wait",
      "3fa9c1",
      "--pane",
      "%12",
      "--socket",
      `path:${parts.socketPath}`,
      "--tmux-bin",
      "/usr/bin/tmux"
    ]
    for (const shell of quotingShells()) {
      assert.deepStrictEqual(wordsIn(shell, line), expected, shell)
    }
  })

  it("through ssh: the agent's shell reads the ssh command, and the remote shell the wait command, alike", () => {
    const ssh = { destination: "me@build-box", port: 2222, sshConfig: "/home/o'neil/my ssh/config" }
    const line = watchCommandLine({ ...parts, socketPath: "/run/it's \"here\" $HOME/sock", ssh })!
    const inner = watchCommandLine({ ...parts, socketPath: "/run/it's \"here\" $HOME/sock" })!
    const shells = quotingShells()
    for (const local of shells) {
      const sshWords = wordsIn(local, line)
      assert.deepStrictEqual(sshWords.slice(0, -1), [
        "ssh",
        "-T",
        "-o",
        "BatchMode=yes",
        "-o",
        "ServerAliveInterval=15",
        "-o",
        "ServerAliveCountMax=3",
        "-F",
        ssh.sshConfig,
        "-p",
        "2222",
        "--",
        "me@build-box"
      ], local)
      // ssh hands its last word to the remote login shell, whichever it is.
      for (const remote of shells) assert.deepStrictEqual(wordsIn(remote, sshWords.at(-1)!), wordsIn("/bin/sh", inner))
    }
    assert.include(wordsIn("/bin/sh", inner), "path:/run/it's \"here\" $HOME/sock")
  })

  it("gives no line for a path with a backslash or a control character, a relative path, or a bad ID", () => {
    assert.isUndefined(watchCommandLine({ ...parts, socketPath: "/tmp/a\\b/sock" }))
    assert.isUndefined(watchCommandLine({ ...parts, entry: ["/usr/bin/node", "/x/\nbin.js"] }))
    assert.isUndefined(watchCommandLine({ ...parts, tmuxPath: "tmux" }))
    assert.isUndefined(watchCommandLine({ ...parts, entry: [] }))
    assert.isUndefined(watchCommandLine({ ...parts, runId: "3fa9c1; rm" }))
    assert.isUndefined(watchCommandLine({ ...parts, paneId: "%1 x" }))
  })

  it("a hub's line for a run on a host: its own ssh to the host and the host's server words, then wait", () => {
    const ssh = { destination: "build", port: undefined, sshConfig: "/home/o'neil/my ssh/config" }
    const line = hostWatchCommandLine({ ssh, entry: ["/opt/node", "/srv/it's/libtmux-mcp.js"], ...ids })!
    const shells = quotingShells()
    for (const local of shells) {
      const sshWords = wordsIn(local, line)
      assert.deepStrictEqual(sshWords.slice(-3, -1), ["--", "build"], local)
      for (const remote of shells) {
        assert.deepStrictEqual(wordsIn(remote, sshWords.at(-1)!), [
          "/opt/node",
          "/srv/it's/libtmux-mcp.js",
          "wait",
          "3fa9c1",
          "--pane",
          "%12"
        ])
      }
    }
    assert.isUndefined(hostWatchCommandLine({ ssh, entry: ["libtmux-mcp"], ...ids, runId: "3fa9c1; rm" }))
    assert.isUndefined(hostWatchCommandLine({ ssh, entry: ["/x/\nbin.js"], ...ids }))
    assert.isUndefined(hostWatchCommandLine({ ssh, entry: [], ...ids }))
  })
})

const ids = { runId: "3fa9c1", paneId: "%12" }
