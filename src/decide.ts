/**
 * Startup for an embedding host: the same decisions the server process makes, from an environment
 * record and flags instead of the process's own.
 */
import * as Effect from "effect/Effect"
import { settingInvalid, type StartupError } from "./domain/StartupError.ts"
import { startup, type StartupFacts } from "./layers/Startup.ts"

/** How to configure the in-process tools: the same variables and flags as the server process. @category models */
export interface EmbedOptions {
  /** Environment to read the LIBTMUX_* variables, TMUX_TMPDIR, TMUX and TMUX_PANE from (default `process.env`). */
  readonly env?: Readonly<Record<string, string | undefined>>
  /** Command-line flags, as the server takes them. */
  readonly argv?: ReadonlyArray<string>
}

/** Startup, as the server does it: configuration, tmux check, socket probe, selection. */
export const decide = (options: EmbedOptions = {}): Effect.Effect<StartupFacts, StartupError> =>
  startup(options.env ?? process.env, options.argv ?? [], process.getuid?.() ?? 0).pipe(
    Effect.flatMap((decided) =>
      decided.kind === "facts"
        ? Effect.succeed(decided.facts)
        : Effect.fail(settingInvalid(`--${decided.kind}`, `--${decided.kind} prints and exits; it does not configure tools in a host (leave it out of argv)`))
    )
  )
