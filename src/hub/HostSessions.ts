/**
 * How the hub reaches a host: a link its MCP client speaks over, and what the far side said outside
 * the protocol. The live way runs `ssh -T ... DESTINATION <the server there>` (HostTransport.ts); a
 * test brings an in-memory one (test/support/memoryHosts.ts) whose host server runs in its process,
 * so each row of docs/remote.md's failure table is tried without an sshd.
 */
import type { Transport } from "@modelcontextprotocol/sdk/shared/transport.js"
import * as Context from "effect/Context"
import * as Layer from "effect/Layer"
import { sshCommand } from "../domain/clientConfig.ts"
import type { HostTable, RemoteHostEntry } from "../domain/hosts.ts"
import type { SshLink } from "../domain/ssh.ts"
import { HostTransport } from "./HostTransport.ts"

/** One session's link to a host. @category models */
export interface HostLink {
  /** What the hub's MCP client speaks over; started by the client's connect. */
  readonly transport: Transport
  /** The last words the far side wrote outside the protocol (ssh's stderr): why a connect failed. */
  readonly said: () => string | undefined
}

/** Opens a link to a host, one per session. @category services */
export class HostSessions extends Context.Service<HostSessions, {
  readonly open: (host: RemoteHostEntry) => HostLink
}>()("libtmux-mcp/hub/HostSessions") {}

/** The last line written on a stream, its ends trimmed, or undefined when there is none. */
export const lastLine = (text: string): string | undefined =>
  text.split("\n").map((line) => line.trim()).filter((line) => line.length > 0).at(-1)

/** The environment ssh runs with: this process's (its agent socket, its HOME for ~/.ssh), strings only. */
const sshEnvironment = (): Record<string, string> =>
  Object.fromEntries(
    Object.entries(process.env).filter((entry): entry is [string, string] => typeof entry[1] === "string")
  )

/** The ssh command line for one host, as `--print-config --ssh` builds it, with the hub's link timing. */
export const hostCommand = (
  table: HostTable,
  host: RemoteHostEntry,
  env: Readonly<Record<string, string>>,
  link?: SshLink
): { readonly command: string; readonly args: Array<string> } =>
  sshCommand(
    { destination: host.destination, port: host.port, sshConfig: table.sshConfig, command: host.command },
    env,
    link
  )

/**
 * The live way: one `ssh -T` per session, `env` (the hub's selection settings, or a host's own) in
 * the remote command with the link timeout, which the host's server keeps as its idle limit.
 * @category layers
 */
export const sshLayer = (
  table: HostTable,
  env: Readonly<Record<string, string>>,
  link: SshLink
): Layer.Layer<HostSessions> =>
  Layer.succeed(
    HostSessions,
    HostSessions.of({
      open: (host) => {
        const ssh = hostCommand(
          table,
          host,
          { ...(host.selection ?? env), LIBTMUX_LINK_TIMEOUT: String(link.connectSeconds) },
          link
        )
        const transport = new HostTransport({ command: ssh.command, args: ssh.args, env: sshEnvironment() })
        let stderr = ""
        transport.stderr.on("data", (chunk: Buffer) => void (stderr = (stderr + chunk.toString()).slice(-4000)))
        return { transport, said: () => lastLine(stderr) }
      }
    })
  )
