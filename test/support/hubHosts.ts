/**
 * Loopback machines for a hub's tests: each a world of its own with a private sshd, reached by its
 * name as an alias in one ssh configuration of the hub's, its server started through a wrapper that
 * writes its audit to a file in its folder. `reach` is the hub's flags for them; `stopHostMachines`
 * ends their tmux servers, sshds and remote processes (the caller removes the worlds).
 */
import { type ChildProcess, execFileSync } from "node:child_process"
import { chmodSync, readFileSync, realpathSync, writeFileSync } from "node:fs"
import { join } from "node:path"
import { binPath } from "./mcp.ts"
import { processesNaming, until } from "./poll.ts"
import { startSshdIn, stopSshd } from "./sshd.ts"
import { makeWorld, type TmuxWorld } from "./tmux.ts"

/** One host of the hub. @category models */
export interface HostMachine {
  readonly name: string
  readonly world: TmuxWorld
  /** The host's sshd (a test that restarts it puts the new one here). */
  daemon: ChildProcess
  /** Where the host's server writes its audit. */
  readonly auditPath: string
}

/** Starts a machine per name (worlds named `${prefix}-${name}`); the hub's ssh configuration goes in `hubWorld`. */
export const startHostMachines = async (
  prefix: string,
  hubWorld: TmuxWorld,
  names: ReadonlyArray<string>
): Promise<{ readonly machines: Array<HostMachine>; readonly sshConfig: string; readonly reach: Array<string> }> => {
  const machines: Array<HostMachine> = []
  const configs: Array<string> = []
  for (const name of names) {
    const world = makeWorld(`${prefix}-${name}`)
    const { sshConfig, daemon } = await startSshdIn(world)
    machines.push({ name, world, daemon, auditPath: join(world.dir, "audit.log") })
    configs.push(readFileSync(sshConfig, "utf8").replace("Host testhost", `Host ${name}`))
  }
  const sshConfig = join(hubWorld.dir, "ssh_config")
  writeFileSync(sshConfig, configs.join("\n"))
  // Each host's server through a wrapper of its own (a per-host --remote-bin).
  const wrappers = machines.map((machine) => {
    const path = join(machine.world.dir, "serve.sh")
    writeFileSync(
      path,
      `#!/bin/sh\nLIBTMUX_AUDIT_LOG="${machine.auditPath}" exec "${process.execPath}" "${realpathSync(binPath)}" "$@"\n`
    )
    chmodSync(path, 0o755)
    return `${machine.name}=${path}`
  })
  return {
    machines,
    sshConfig,
    reach: ["--ssh-config", sshConfig, "--remote-node", "/bin/sh", ...wrappers.flatMap((w) => ["--remote-bin", w])]
  }
}

/** Ends each machine's tmux server and sshd, then waits for its remote shells and servers to exit. */
export const stopHostMachines = async (machines: ReadonlyArray<HostMachine>): Promise<void> => {
  for (const machine of machines) {
    try {
      execFileSync("tmux", ["-S", join(machine.world.socketDir, "libtmux-mcp"), "kill-server"], { stdio: "ignore" })
    } catch {
      // Never started, or already gone.
    }
  }
  for (const machine of machines) await stopSshd(machine.daemon)
  // The remote shells and servers write into their folders as they exit: let them go first.
  for (const machine of machines) {
    await until(
      `${machine.name}'s processes to exit`,
      () => processesNaming(machine.world.dir),
      (pids) => pids.length === 0
    )
  }
}
