/**
 * A private OpenSSH server on a loopback port, in a test's own folder: its own host key,
 * sshd_config, authorized key, client config and known-hosts file. Nothing of the account is
 * touched; the caller ends the daemon (`stopSshd`) and removes the folder.
 */
import { type ChildProcess, execFileSync, spawn } from "node:child_process"
import { existsSync, mkdirSync, writeFileSync } from "node:fs"
import { createServer } from "node:net"
import { userInfo } from "node:os"
import { join } from "node:path"
import { until } from "./poll.ts"
import type { TmuxWorld } from "./tmux.ts"

const sshd = "/usr/sbin/sshd"

/** Whether an sshd, ssh and ssh-keygen are installed here. */
export const sshdAvailable = existsSync(sshd) && existsSync("/usr/bin/ssh") && existsSync("/usr/bin/ssh-keygen")

/** A loopback port nothing listens on: taken, then released. */
export const freePort = () =>
  new Promise<number>((resolve, reject) => {
    const server = createServer()
    server.listen(0, "127.0.0.1", () => {
      const { port } = server.address() as { port: number }
      server.close(() => resolve(port))
    })
    server.on("error", reject)
  })

/** Starts an sshd in `world`'s folder that accepts one generated key; `ssh -F sshConfig testhost` reaches it. */
export const startSshdIn = async (world: TmuxWorld): Promise<{ sshConfig: string; daemon: ChildProcess }> => {
  const dir = world.dir
  const port = await freePort()
  execFileSync("ssh-keygen", ["-q", "-t", "ed25519", "-N", "", "-f", join(dir, "host_key")])
  execFileSync("ssh-keygen", ["-q", "-t", "ed25519", "-N", "", "-f", join(dir, "client_key")])
  execFileSync("cp", [join(dir, "client_key.pub"), join(dir, "authorized_keys")])
  // sshd refuses to start without its privilege-separation folder (made by the service otherwise).
  if (process.getuid?.() === 0) mkdirSync("/run/sshd", { recursive: true, mode: 0o755 })
  // Login shells start in a home of their own: the account's startup files (which may do slow work,
  // and leave it half done when the test drops the connection) are never read.
  const loginHome = join(dir, "login-home")
  mkdirSync(loginHome, { recursive: true })
  writeFileSync(
    join(dir, "sshd_config"),
    [
      `Port ${port}`,
      "ListenAddress 127.0.0.1",
      `HostKey "${join(dir, "host_key")}"`,
      `AuthorizedKeysFile "${join(dir, "authorized_keys")}"`,
      `PidFile "${join(dir, "sshd.pid")}"`,
      "StrictModes no",
      "UsePAM no",
      "PasswordAuthentication no",
      "KbdInteractiveAuthentication no",
      "PubkeyAuthentication yes",
      "PermitRootLogin prohibit-password",
      // TMUX_TMPDIR too: a server started there keeps its locks in this folder, not in /tmp/tmux-<uid>.
      `SetEnv "HOME=${loginHome}" "TMUX_TMPDIR=${dir}"`,
      ""
    ].join("\n")
  )
  const sshConfig = join(dir, "ssh_config")
  writeFileSync(
    sshConfig,
    [
      "Host testhost",
      "  HostName 127.0.0.1",
      `  Port ${port}`,
      `  User ${userInfo().username}`,
      `  IdentityFile "${join(dir, "client_key")}"`,
      "  IdentitiesOnly yes",
      `  UserKnownHostsFile "${join(dir, "known_hosts")}"`,
      "  StrictHostKeyChecking accept-new",
      "  LogLevel ERROR",
      ""
    ].join("\n")
  )
  return { sshConfig, daemon: await runSshdIn(world) }
}

/** Starts (or starts again, on the same port and keys) the sshd that `startSshdIn` set up in `world`'s folder. */
export const runSshdIn = async (world: TmuxWorld): Promise<ChildProcess> => {
  const dir = world.dir
  const sshConfig = join(dir, "ssh_config")
  const daemon = spawn(sshd, ["-D", "-e", "-f", join(dir, "sshd_config")], { stdio: ["ignore", "ignore", "pipe"] })
  let log = ""
  daemon.stderr?.on("data", (chunk: Buffer) => void (log += chunk.toString()))
  // Ready once a command goes through.
  const ready = await until(`sshd to accept a command (its log: ${log})`, () => {
    if (daemon.exitCode !== null) return "sshd exited"
    execFileSync("ssh", ["-F", sshConfig, "-o", "BatchMode=yes", "testhost", "true"], { stdio: "pipe", timeout: 5_000 })
    return "ready"
  })
  if (ready !== "ready") throw new Error(`sshd did not start: ${log}`)
  return daemon
}

/** Ends the daemon and waits until it has exited. */
export const stopSshd = async (daemon: ChildProcess): Promise<void> => {
  if (daemon.exitCode !== null || daemon.signalCode !== null) return
  const exited = new Promise((resolve) => daemon.once("exit", resolve))
  daemon.kill("SIGTERM")
  await exited
}
