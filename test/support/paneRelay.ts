/**
 * Runs inside a tmux pane: starts the built server as its child, with exactly the environment in
 * a JSON file (no TMUX, no TMUX_PANE: what MCP clients pass), and relays its stdio over a Unix
 * socket that the test connects to. What reaches the pane's terminal is appended to a file, so a
 * test can tell that nothing was typed there.
 *
 * argv: socket, env file, server entry, stderr file, typed file, and how the server starts:
 * `attached` (a child that keeps the pane's terminal as its controlling terminal), `detached` (a
 * child in a new session: no terminal, so only the process tree leads to the pane), or `orphan`
 * (started by a shell that exits at once: it keeps the terminal but the pane's process is no
 * longer its ancestor).
 */
import { spawn } from "node:child_process"
import { appendFileSync, readFileSync, writeFileSync } from "node:fs"
import { createServer } from "node:net"
import type { Duplex } from "node:stream"

const [socketPath = "", envFile = "", entry = "", stderrFile = "", typedFile = "", mode] = process.argv.slice(2)
const env = JSON.parse(readFileSync(envFile, "utf8")) as Record<string, string>
writeFileSync(typedFile, "")
process.stdin.on("data", (chunk: Buffer) => appendFileSync(typedFile, new Uint8Array(chunk)))

const done = () => {
  listener.close()
  process.exit(0)
}

const listener = createServer((socket) => {
  if (mode === "orphan") {
    // The shell puts the server in the background on pipes 3-5 and exits: the server is reparented.
    const shell = spawn("/bin/sh", ["-c", "\"$0\" \"$1\" <&3 >&4 2>&5 3<&- 4>&- 5>&- &", process.execPath, entry], {
      env,
      stdio: ["ignore", "ignore", "ignore", "pipe", "pipe", "pipe"]
    })
    const [input, output, errors] = (shell.stdio as ReadonlyArray<unknown>).slice(3) as [Duplex, Duplex, Duplex]
    errors.on("data", (chunk: Buffer) => appendFileSync(stderrFile, chunk))
    socket.pipe(input)
    output.pipe(socket)
    output.on("close", done)
    return
  }
  const child = spawn(process.execPath, [entry], {
    env,
    detached: mode === "detached",
    stdio: ["pipe", "pipe", "pipe"]
  })
  child.stderr.on("data", (chunk: Buffer) => appendFileSync(stderrFile, chunk))
  socket.pipe(child.stdin)
  child.stdout.pipe(socket)
  child.on("exit", () => {
    socket.destroy()
    done()
  })
})
// The socket file exists from bind, a moment before it listens: a connection then is refused. The
// marker says it listens.
listener.listen(socketPath, () => writeFileSync(`${socketPath}.ready`, ""))
