/**
 * Startup for an embedding host: the same decisions the server process makes, from an environment
 * record, or an Effect `ConfigProvider`, and flags instead of the process's own.
 */
import * as Config from "effect/Config"
import type * as ConfigProvider from "effect/ConfigProvider"
import * as Effect from "effect/Effect"
import * as Option from "effect/Option"
import type * as Scope from "effect/Scope"
import type { ServiceReplacements } from "./composition.ts"
import { settingInvalid, type StartupError } from "./domain/StartupError.ts"
import { startup, type StartupFacts } from "./startup/Startup.ts"

/** How to configure the in-process tools: the same variables and flags as the server process. @category models */
export interface EmbedOptions {
  /** Environment to read the LIBTMUX_* variables, TMUX_TMPDIR, TMUX and TMUX_PANE from (default `process.env`). */
  readonly env?: Readonly<Record<string, string | undefined>>
  /** Or: an Effect ConfigProvider to read those variables from, by the same names (instead of `env`). */
  readonly configProvider?: ConfigProvider.ConfigProvider
  /** Command-line flags, as the server takes them. */
  readonly argv?: ReadonlyArray<string>
  /** Services to use instead of the live ones (for example an Audit sink of the host's own). */
  readonly services?: ServiceReplacements
}

/** The variables of the system startup reads besides the settings (which it reads as Config values). */
const systemVariables = [
  "TMUX_TMPDIR",
  "TMUX",
  "TMUX_PANE",
  "PATH",
  "HOME",
  "SHELL",
  "XDG_RUNTIME_DIR",
  "XDG_STATE_HOME",
  "XDG_CACHE_HOME"
]

/** The system variables a ConfigProvider holds, as the environment record startup reads them from. */
const environmentOf = (provider: ConfigProvider.ConfigProvider) =>
  Effect.forEach(systemVariables, (name) =>
    Config.option(Config.String(name)).parse(provider).pipe(
      Effect.map((value): readonly [string, string | undefined] => [name, Option.getOrUndefined(value)]),
      // A provider that cannot answer a name does not set it.
      Effect.orElseSucceed((): readonly [string, string | undefined] => [name, undefined])
    )).pipe(Effect.map((entries): Record<string, string | undefined> => Object.fromEntries(entries)))

/**
 * Startup, as the server does it: configuration, tmux check, socket probe, selection. The lease is
 * held as long as the scope.
 */
export const decide = (options: EmbedOptions = {}): Effect.Effect<StartupFacts, StartupError, Scope.Scope> =>
  Effect.gen(function*() {
    const provider = options.configProvider
    const env = provider === undefined ? options.env ?? process.env : yield* environmentOf(provider)
    // Without a provider, startup reads the settings from `env` too.
    const decided = yield* startup(env, options.argv ?? [], process.getuid?.() ?? 0, provider)
    return decided.kind === "facts"
      ? decided.facts
      : yield* Effect.fail(
        settingInvalid(
          `--${decided.kind}`,
          `--${decided.kind} prints and exits; it does not configure tools in a host (leave it out of argv)`
        )
      )
  })
