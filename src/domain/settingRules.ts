/**
 * The rules one setting's text is checked by, each error naming the valid set; and the retired
 * variables of the predecessor, which stop startup, and the unknown ones, which warn.
 */
import * as Result from "effect/Result"
import { settings } from "./settings.ts"
import { settingInvalid, type StartupError } from "./StartupError.ts"
import { unknownVariableWarnings } from "./unknownVariables.ts"

/** Configuration for a tmux server this process starts. @category models */
export type TmuxConfigChoice =
  | { readonly kind: "minimal" }
  | { readonly kind: "user" }
  | { readonly kind: "path"; readonly path: string }

/** An absolute path tmux and the filesystem can take (no NUL byte). */
export const isAbsolutePath = (raw: string): boolean => raw.startsWith("/") && !raw.includes("\0")

export const parseTmuxConfig = (raw: string): Result.Result<TmuxConfigChoice, StartupError> => {
  if (raw === "minimal" || raw === "user") return Result.succeed({ kind: raw })
  return isAbsolutePath(raw)
    ? Result.succeed({ kind: "path", path: raw })
    : Result.fail(
      settingInvalid(
        "LIBTMUX_TMUX_CONFIG",
        `LIBTMUX_TMUX_CONFIG ${
          JSON.stringify(raw)
        } is not valid; use minimal, user, or an absolute path to a tmux configuration file`
      )
    )
}

export const parseTmuxBin = (raw: string | undefined): Result.Result<string, StartupError> =>
  raw === undefined
    ? Result.succeed("tmux")
    : raw === ""
    ? Result.fail(settingInvalid("LIBTMUX_TMUX_BIN", "LIBTMUX_TMUX_BIN is empty; name a tmux binary or omit it"))
    : Result.succeed(raw)

export const parseSuppressHistory = (raw: string | undefined): Result.Result<boolean, StartupError> =>
  raw === undefined || raw === "1"
    ? Result.succeed(true)
    : raw === "0"
    ? Result.succeed(false)
    : Result.fail(
      settingInvalid(
        "LIBTMUX_SUPPRESS_HISTORY",
        `LIBTMUX_SUPPRESS_HISTORY ${JSON.stringify(raw)} is not valid; use 1 (suppress, the default) or 0`
      )
    )

/** The settings that take a value from a closed set, each with its values: the first is the default. */
export const choices = {
  LIBTMUX_TRANSPORT: ["auto", "control", "spawn"],
  LIBTMUX_ADOPT: ["adopt", "refuse"],
  LIBTMUX_LEASE: ["shared", "exclusive"]
} as const

/** A setting from a closed set; the first value is the default. */
export const oneOf = <const V extends ReadonlyArray<string>>(
  variable: string,
  raw: string | undefined,
  values: V
): Result.Result<V[number], StartupError> =>
  raw === undefined
    ? Result.succeed(values[0]!)
    : values.includes(raw)
    ? Result.succeed(raw)
    : Result.fail(
      settingInvalid(variable, `${variable} ${JSON.stringify(raw)} is not valid; use ${values.join(" or ")}`)
    )

/** A setting that names an absolute path, or is not set; else the error says what to give. */
const absolutePath = (variable: string, give: string) =>
(
  raw: string | undefined
): Result.Result<string | undefined, StartupError> =>
  raw === undefined || isAbsolutePath(raw)
    ? Result.succeed(raw)
    : Result.fail(settingInvalid(variable, `${variable} ${JSON.stringify(raw)} is not valid; ${give}`))

export const parseAuditLog = absolutePath("LIBTMUX_AUDIT_LOG", "give an absolute file path, or omit it for stderr")

export const parseRecord = absolutePath("LIBTMUX_RECORD", "give an absolute folder path, or omit it to record nothing")

export const parseLinkTimeout = (raw: string | undefined): Result.Result<number | undefined, StartupError> =>
  raw === undefined || (/^[0-9]{1,4}$/u.test(raw) && Number(raw) >= 3 && Number(raw) <= 3600)
    ? Result.succeed(raw === undefined ? undefined : Number(raw))
    : Result.fail(
      settingInvalid(
        "LIBTMUX_LINK_TIMEOUT",
        `LIBTMUX_LINK_TIMEOUT ${JSON.stringify(raw.slice(0, 40))} is not valid; use whole seconds from 3 to 3600`
      )
    )

/**
 * The predecessor's variables (MIGRATION.md), each with its replacement. Setting one, even empty,
 * stops startup: ignoring it would run on another socket or surface than the one asked for.
 */
export const retiredVariables: ReadonlyArray<readonly [string, (value: string) => string]> = [
  ["LIBTMUX_SAFETY", () =>
    "LIBTMUX_SAFETY is no longer read; select toolsets with LIBTMUX_TOOLSETS instead: " +
    "readonly -> inspect, mutating -> inspect,manage,execute, destructive -> inspect,manage,execute,teardown"],
  [
    "LIBTMUX_SOCKET_PATH",
    (value) =>
      `LIBTMUX_SOCKET_PATH is no longer read; use LIBTMUX_SOCKET=path:${
        isAbsolutePath(value) ? value : "/absolute/socket"
      } instead and unset LIBTMUX_SOCKET_PATH`
  ],
  [
    "LIBTMUX_MCP_PROMPTS_AS_TOOLS",
    () =>
      "LIBTMUX_MCP_PROMPTS_AS_TOOLS is no longer read: prompts were removed (pane " +
      "content flows through tools), so there is nothing to replace it; unset it"
  ]
]

/** Startup warnings for the `LIBTMUX_*` variables in `env` that nothing reads, each naming the nearest one. */
export const unknownSettingWarnings = (env: Readonly<Record<string, string | undefined>>): Array<string> =>
  unknownVariableWarnings(
    env,
    [...settings.map((setting) => setting.variable), ...retiredVariables.map(([variable]) => variable)],
    settings.map((setting) => setting.variable)
  )
