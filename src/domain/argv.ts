/**
 * The command line: the flags that mirror settings (a flag's value follows it or an `=`), the
 * `--print-config` entry's own flags, and a hub's flags that have no variable.
 */
import * as Result from "effect/Result"
import { resolve } from "node:path"
import { clients } from "./clientConfig.ts"
import { parseHostTable } from "./hosts.ts"
import { type PrintConfigFlag, printConfigFlags, type PrintedHub } from "./printConfig.ts"
import { flagNames, settings, type Values } from "./settings.ts"
import { settingInvalid, type StartupError } from "./StartupError.ts"

export interface Cli {
  readonly values: Values
  readonly help: boolean
  readonly version: boolean
  readonly printConfig: string | undefined
  readonly entry: Partial<Record<PrintConfigFlag, string>>
  readonly noLocal: boolean
  readonly remoteNode: ReadonlyArray<string>
  readonly remoteBin: ReadonlyArray<string>
}

/** Entry flags that also shape a hub's hosts (each repeatable there, as `[NAME=]PATH`). */
const hubFlags: ReadonlyArray<string> = ["--ssh-config", "--remote-node", "--remote-bin"]

/** Reads flags; a flag's value follows it or an `=`. */
export const parseArgv = (argv: ReadonlyArray<string>): Result.Result<Cli, StartupError> => {
  const values: Values = {}
  let help = false
  let version = false
  let printConfig: string | undefined
  const entry: Partial<Record<PrintConfigFlag, string>> = {}
  let noLocal = false
  const remoteNode: Array<string> = []
  const remoteBin: Array<string> = []
  for (let i = 0; i < argv.length; i++) {
    const arg = argv[i]!
    const eq = arg.indexOf("=")
    const flag = eq === -1 ? arg : arg.slice(0, eq)
    if (arg === "--help" || arg === "-h") help = true
    else if (arg === "--version" || arg === "-V" || arg === "-v") version = true
    else if (arg === "--no-local") noLocal = true
    else if (flag === "--print-config") {
      if (eq === -1 && i + 1 >= argv.length) {
        return Result.fail(
          settingInvalid("--print-config", `--print-config needs a client: ${Object.keys(clients).join(", ")}`)
        )
      }
      printConfig = eq === -1 ? argv[++i]! : arg.slice(eq + 1)
    } else if ((printConfigFlags as ReadonlyArray<string>).includes(flag)) {
      if (eq === -1 && i + 1 >= argv.length) return Result.fail(settingInvalid(flag, `${flag} needs a value`))
      const value = eq === -1 ? argv[++i]! : arg.slice(eq + 1)
      entry[flag as PrintConfigFlag] = value
      if (flag === "--remote-node") remoteNode.push(value)
      if (flag === "--remote-bin") remoteBin.push(value)
    } else {
      const setting = settings.find((candidate) => candidate.flag === flag)
      if (setting === undefined) {
        return Result.fail(
          settingInvalid(
            arg,
            `unknown argument ${JSON.stringify(arg)}; valid flags: ${flagNames.join(", ")}, --print-config (with ${
              printConfigFlags.join(", ")
            }), --no-local, --help, --version`
          )
        )
      }
      if (eq === -1 && i + 1 >= argv.length) {
        return Result.fail(settingInvalid(flag, `${flag} needs a value (${setting.help})`))
      }
      const value = eq === -1 ? argv[++i]! : arg.slice(eq + 1)
      // --host and --host-toolsets repeat: their variables are the comma lists.
      const before = values[setting.variable]
      values[setting.variable] = (setting.flag === "--host" || setting.flag === "--host-toolsets") &&
          before !== undefined
        ? `${before},${value}`
        : value
    }
  }
  const entryOnly = Object.keys(entry).filter((flag) => !hubFlags.includes(flag))
  if (printConfig === undefined && entryOnly.length > 0) {
    const flag = entryOnly[0]!
    return Result.fail(
      settingInvalid(flag, `${flag} goes with --print-config: it shapes the client entry printed, not this server`)
    )
  }
  return Result.succeed({ values, help, version, printConfig, entry, noLocal, remoteNode, remoteBin })
}

/**
 * `--print-config` with `--host`: the hub's table, checked as serving checks it, and the flags of
 * the entry's command line (those with a variable go into its env block with the other settings).
 */
export const printedHub = (cli: Cli, cwd: string): Result.Result<PrintedHub | undefined, StartupError> =>
  Result.map(
    // Without --host, the flags that only a hub takes are refused as serving refuses them; the
    // others (--ssh-config, --remote-node, --remote-bin) belong to --ssh then.
    parseHostTable(
      cli.values.LIBTMUX_HOSTS === undefined
        ? {
          hosts: [],
          noLocal: cli.noLocal,
          remoteNode: [],
          remoteBin: [],
          sshConfig: undefined,
          hostToolsets: cli.values.LIBTMUX_HOST_TOOLSETS
        }
        : {
          hosts: cli.values.LIBTMUX_HOSTS.split(","),
          noLocal: cli.noLocal,
          remoteNode: cli.remoteNode,
          remoteBin: cli.remoteBin,
          sshConfig: cli.entry["--ssh-config"],
          hostToolsets: cli.values.LIBTMUX_HOST_TOOLSETS
        },
      (path) => resolve(cwd, path)
    ),
    (table) =>
      table === undefined ? undefined : {
        table,
        args: [
          ...(cli.noLocal ? ["--no-local"] : []),
          ...cli.remoteNode.flatMap((value) => ["--remote-node", value]),
          ...cli.remoteBin.flatMap((value) => ["--remote-bin", value]),
          ...(table.sshConfig === undefined ? [] : ["--ssh-config", table.sshConfig])
        ]
      }
  )
