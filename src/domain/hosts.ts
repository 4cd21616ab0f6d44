/**
 * The hosts of a hub (`--host NAME=DESTINATION`, or LIBTMUX_HOSTS): each a destination as `--ssh`
 * takes it, with the remote command that starts this same server there. Checked at startup; every
 * error names the valid form.
 */
import * as Result from "effect/Result"
import { type HostToolsets, parseHostToolsets } from "./hostToolsets.ts"
import { pathWord } from "./pathWord.ts"
import { parseSshTarget } from "./ssh.ts"
import { settingInvalid, type StartupError } from "./StartupError.ts"

/** The name that stands for this machine. */
export const localHost = "local"

/** One declared host. @category models */
export interface RemoteHostEntry {
  readonly name: string
  /** `[user@]host` or an alias of the user's ssh configuration. */
  readonly destination: string
  readonly port: number | undefined
  /** The words that start the server on the host (quoted for its shell when ssh's command is built). */
  readonly command: ReadonlyArray<string>
  /** The selection settings its server starts with when --host-toolsets narrows it (else the hub's, as given). */
  readonly selection?: Readonly<Record<string, string>>
}

/** The hub's host table. @category models */
export interface HostTable {
  readonly remotes: ReadonlyArray<RemoteHostEntry>
  /** Whether `local` (this machine) is a host. */
  readonly local: boolean
  /** The host a call without `host` goes to: `local`, or the first declared host with --no-local. */
  readonly defaultHost: string
  /** `ssh -F`, for every host. */
  readonly sshConfig: string | undefined
  /** The hosts --host-toolsets narrows (`local` among them possibly); absent when none is. */
  readonly toolsets?: HostToolsets
}

/** The flags that shape the host table, as given (the repeatable ones in order). @category models */
export interface HostFlags {
  /** `NAME=DESTINATION`, each. */
  readonly hosts: ReadonlyArray<string>
  readonly noLocal: boolean
  /** `[NAME=]PATH`, each; without a name, for every host. */
  readonly remoteNode: ReadonlyArray<string>
  readonly remoteBin: ReadonlyArray<string>
  readonly sshConfig: string | undefined
  /** LIBTMUX_HOST_TOOLSETS, the flags joined with commas. */
  readonly hostToolsets?: string | undefined
}

const hostName = /^[a-z][a-z0-9_-]{0,31}$/u

/** A host's destination as `--ssh` takes it; the error quotes the flag's value whole. */
const parseSshDestination = (raw: string, shown: string) => {
  const target = parseSshTarget(raw)
  return target !== undefined ? Result.succeed(target) : Result.fail(
    settingInvalid(
      "--host",
      `--host ${
        JSON.stringify(shown)
      } is not valid; use [user@]host[:port] (letters, digits, . _ -; a host alias from your ssh config works too)`
    )
  )
}

/** The names a call may give, `local` first when it is a host. */
export const hostNames = (table: HostTable): ReadonlyArray<string> => [
  ...(table.local ? [localHost] : []),
  ...table.remotes.map((host) => host.name)
]

/** Splits `NAME=VALUE`; a value without a name has none. */
const named = (raw: string): { readonly name: string | undefined; readonly value: string } => {
  const eq = raw.indexOf("=")
  const name = eq === -1 ? undefined : raw.slice(0, eq)
  return name !== undefined && hostName.test(name)
    ? { name, value: raw.slice(eq + 1) }
    : { name: undefined, value: raw }
}

/** Per-host paths: `NAME=PATH` for one host, a bare PATH for every host; the last given wins. */
const perHost = (
  flag: string,
  given: ReadonlyArray<string>,
  names: ReadonlyArray<string>
): Result.Result<{ readonly all: string | undefined; readonly byName: ReadonlyMap<string, string> }, StartupError> =>
  Result.gen(function*() {
    let all: string | undefined
    const byName = new Map<string, string>()
    for (const raw of given) {
      const { name, value } = named(raw)
      if (name !== undefined && !names.includes(name)) {
        return yield* Result.fail(
          settingInvalid(flag, `${flag} ${JSON.stringify(raw)} names no declared host; declared: ${names.join(", ")}`)
        )
      }
      const path = yield* pathWord(flag, value)
      if (name === undefined) all = path
      else byName.set(name, path)
    }
    return { all, byName }
  })

/** The host table from the flags (or LIBTMUX_HOSTS's comma list); undefined when no host is declared. */
export const parseHostTable = (flags: HostFlags, cwdResolve: (path: string) => string) =>
  Result.gen(function*() {
    const stray = flags.noLocal
      ? "--no-local"
      : flags.remoteNode.length > 0
      ? "--remote-node"
      : flags.remoteBin.length > 0
      ? "--remote-bin"
      : flags.sshConfig !== undefined
      ? "--ssh-config"
      : flags.hostToolsets !== undefined
      ? "--host-toolsets"
      : undefined
    if (flags.hosts.length === 0) {
      return stray === undefined
        ? undefined
        : yield* Result.fail(
          settingInvalid(
            stray,
            `${stray} goes with --host NAME=DESTINATION (a hub of hosts)${
              stray === "--no-local" || stray === "--host-toolsets" ? "" : " or with --print-config --ssh"
            }`
          )
        )
    }
    const entries: Array<{ name: string; destination: string; port: number | undefined }> = []
    for (const raw of flags.hosts) {
      const eq = raw.indexOf("=")
      const name = eq === -1 ? "" : raw.slice(0, eq)
      if (!hostName.test(name) || name === localHost) {
        return yield* Result.fail(
          settingInvalid(
            "--host",
            `--host ${JSON.stringify(raw)} is not valid; use NAME=DESTINATION, NAME 1 to 32 lower-case letters, ` +
              `digits, - and _ starting with a letter (not ${localHost}, which is this machine)`
          )
        )
      }
      if (entries.some((entry) => entry.name === name)) {
        return yield* Result.fail(settingInvalid("--host", `--host ${name} is declared twice; give each host once`))
      }
      entries.push({ name, ...yield* parseSshDestination(raw.slice(eq + 1), raw) })
    }
    const names = entries.map((entry) => entry.name)
    const node = yield* perHost("--remote-node", flags.remoteNode, names)
    const bin = yield* perHost("--remote-bin", flags.remoteBin, names)
    const sshConfig = flags.sshConfig === undefined
      ? undefined
      : yield* pathWord("--ssh-config", flags.sshConfig, false)
    const remotes = entries.map((entry): RemoteHostEntry => {
      const hostNode = node.byName.get(entry.name) ?? node.all
      const hostBin = bin.byName.get(entry.name) ?? bin.all
      return {
        ...entry,
        // As --print-config --ssh: the installed bin by default, else Node with that bin.
        command: hostNode === undefined && hostBin === undefined
          ? ["libtmux-mcp"]
          : [hostNode ?? "node", hostBin ?? "libtmux-mcp"]
      }
    })
    const toolsets = flags.hostToolsets === undefined
      ? undefined
      : yield* parseHostToolsets(flags.hostToolsets, [...(flags.noLocal ? [] : [localHost]), ...names])
    return {
      remotes,
      local: !flags.noLocal,
      defaultHost: flags.noLocal ? remotes[0]!.name : localHost,
      // ssh reads a relative -F against the folder it starts in.
      sshConfig: sshConfig === undefined || sshConfig.startsWith("/") || sshConfig.startsWith("~")
        ? sshConfig
        : cwdResolve(sshConfig),
      ...(toolsets === undefined ? {} : { toolsets })
    } satisfies HostTable as HostTable
  })
