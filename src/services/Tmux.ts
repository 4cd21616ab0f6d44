/**
 * The tmux authority services. tmux access is split by authority, and each service admits only
 * its own closed grammar of tmux commands, down to the flag and the option name (TmuxGrammar.ts),
 * so a tool's requirements say what it can do: the registry's types refuse an inspect tool that
 * requires `PaneInput`, or a manage tool that requires `TmuxDelete`, and a service's types refuse
 * the forms that would take it past its row (`display-message -I`, a `status-*` option, a
 * `copy-pipe`, a respawn from a run). `makeAuthorities` is the one constructor: it wraps a raw
 * runner, which exists only inside the live layer (and a test's fake), with the grammar's check.
 *
 * Every invocation is an argv (never a shell string), pinned to the socket resolved at startup.
 * The typed reads of sessions, windows and panes are part of the contract (TmuxReads.ts): programs
 * and tools read rows, not `-F` formats.
 */
import * as Context from "effect/Context"
import * as Effect from "effect/Effect"
import type { TmuxError } from "./errors.ts"
import {
  type AuthorityName,
  type changeOptions,
  type CommandName,
  type copyModeCommands,
  refusal
} from "./TmuxGrammar.ts"

/** One tmux command: its name, then its arguments. @category models */
export type TmuxCommand<Name extends string> = readonly [Name, ...ReadonlyArray<string>]

/** `display-message` as every authority uses it: print one format for one target, never `-I`. @category models */
export type PrintFormat = readonly ["display-message", "-p", "-t", string, string]
/** `set-option` as a change: one of the manage setters' options, then its value. @category models */
export type ChangeSetting = readonly ["set-option", ...ReadonlyArray<string>, keyof typeof changeOptions, string]
/** `send-keys` as a change: one named copy-mode command, never a pipe. @category models */
export type CopyModeKeys = readonly [
  "send-keys",
  "-X",
  ...ReadonlyArray<string>,
  typeof copyModeCommands.values[number]
]
/** `send-keys` as input: keys for one pane's program, never a copy-mode command. @category models */
export type PaneKeys = readonly ["send-keys", "-t", string, ...ReadonlyArray<string>]

type Shape<A extends AuthorityName, N extends string> = N extends "display-message" ? PrintFormat
  : N extends "set-option" ? A extends "TmuxChange" ? ChangeSetting : TmuxCommand<N>
  : N extends "send-keys" ? A extends "TmuxChange" ? CopyModeKeys : PaneKeys
  : TmuxCommand<N>

type Shaped = "display-message" | "set-option" | "send-keys"

/** The commands one authority admits, as types: its grammar's names, in the shapes above. @category models */
export type CommandOf<A extends AuthorityName> =
  | TmuxCommand<Exclude<CommandName<A>, Shaped>>
  | { [N in Extract<CommandName<A>, Shaped>]: Shape<A, N> }[Extract<CommandName<A>, Shaped>]

/** Options of one invocation. @category models */
export interface InvocationOptions {
  /** How long the invocation may take, in milliseconds (default 10 s). */
  readonly timeoutMs?: number
  /** How many bytes of output to read at most; more stops the client with `TmuxOutputTooLarge`. */
  readonly maxOutputBytes?: number
}
/** A spawn's options: the tmux client's working directory is how a start directory reaches tmux without `-c`. */
export interface SpawnOptions extends InvocationOptions {
  readonly cwd?: string
}
/** Options of an authority that admits `load-buffer -`: the text for the client's standard input. */
export interface InputOptions extends InvocationOptions {
  readonly input?: string
  /**
   * For a list that waits on a channel: a print whose output is not empty once the channel was
   * signalled. Over a control connection, the runner asks it for a moment before it starts a client
   * to wait, and a list whose signal came by then is answered with no client started
   * (platform/ControlLink.ts).
   */
  readonly signalled?: PrintFormat
}
/** What a raw runner takes. @category models */
export type RunnerOptions = SpawnOptions & InputOptions

type OptionsOf<A extends AuthorityName> = A extends "TmuxSpawn" ? SpawnOptions
  : "load-buffer" extends CommandName<A> ? InputOptions
  : InvocationOptions

/** The shape shared by every authority service: several commands may share one invocation. */
export interface Authority<A extends AuthorityName> {
  run(commands: ReadonlyArray<CommandOf<A>>, options?: OptionsOf<A>): Effect.Effect<string, TmuxError>
}

/** Read-only tmux access. @category services */
export class TmuxObserve extends Context.Service<TmuxObserve, Authority<"TmuxObserve">>()(
  "libtmux-mcp/services/TmuxObserve"
) {}

/** Structure and presentation changes. @category services */
export class TmuxChange extends Context.Service<TmuxChange, Authority<"TmuxChange">>()(
  "libtmux-mcp/services/TmuxChange"
) {}

/** What a spawn that may start the server reports. @category models */
export interface Created {
  readonly stdout: string
  readonly startedServer: boolean
  readonly provenance: string
}

/** Spawning, plus the one spawn that may start the tmux server. @category models */
export interface SpawnAuthority extends Authority<"TmuxSpawn"> {
  /**
   * Runs commands that may start the tmux server, holding the socket's creation lock across every
   * libtmux-mcp instance, so that exactly one starts it and each knows whether it was the one.
   */
  create(
    commands: ReadonlyArray<CommandOf<"TmuxSpawn">>,
    options?: SpawnOptions
  ): Effect.Effect<Created, TmuxError>
}

/** Starting a pane's configured process (sessions, windows, panes). @category services */
export class TmuxSpawn extends Context.Service<TmuxSpawn, SpawnAuthority>()("libtmux-mcp/services/TmuxSpawn") {}

/** Deleting tmux objects or scrollback. @category services */
export class TmuxDelete extends Context.Service<TmuxDelete, Authority<"TmuxDelete">>()(
  "libtmux-mcp/services/TmuxDelete"
) {}

/** Delivering client keys or text to a pane's program. @category services */
export class PaneInput extends Context.Service<PaneInput, Authority<"PaneInput">>()(
  "libtmux-mcp/services/PaneInput"
) {}

/** Running an authored shell command in a pane. @category services */
export class PaneCommand extends Context.Service<PaneCommand, Authority<"PaneCommand">>()(
  "libtmux-mcp/services/PaneCommand"
) {}

/** Replacing a pane's process: a delete with pane-command reach. @category services */
export class PaneRespawn extends Context.Service<PaneRespawn, Authority<"PaneRespawn">>()(
  "libtmux-mcp/services/PaneRespawn"
) {}

/** Every authority service. @category models */
export type Authorities = TmuxObserve | TmuxChange | TmuxSpawn | TmuxDelete | PaneInput | PaneCommand | PaneRespawn

/** Each authority service by the name its grammar is filed under. @category models */
export const authorityServices = {
  TmuxObserve,
  TmuxChange,
  TmuxSpawn,
  TmuxDelete,
  PaneInput,
  PaneCommand,
  PaneRespawn
} as const satisfies Record<AuthorityName, Context.Key<Authorities, unknown>>

/**
 * The one primitive under the authorities: runs commands in one tmux invocation. `authority`
 * names the service that asked; the live runner ignores it, a recording fake keeps it.
 * @category models
 */
export type Runner = (
  commands: ReadonlyArray<ReadonlyArray<string>>,
  options: RunnerOptions,
  authority: AuthorityName
) => Effect.Effect<string, TmuxError>

/** The runner with no authority to name: the live layer's own, on the pinned socket. @category models */
export type PinnedRunner = (
  commands: ReadonlyArray<ReadonlyArray<string>>,
  options: RunnerOptions
) => Effect.Effect<string, TmuxError>

/** What `makeAuthorities` wraps. @category models */
export interface Runners {
  readonly run: Runner
  /** Runs spawns (which may carry the configuration-file flags). */
  readonly spawn: Runner
  /** Runs spawns that may start the server (see `SpawnAuthority.create`). */
  readonly create: (
    commands: ReadonlyArray<ReadonlyArray<string>>,
    options: SpawnOptions
  ) => Effect.Effect<Created, TmuxError>
}

/** Shortens a value for a refusal's message. */
const clip = (text: string) => text.length > 60 ? `${text.slice(0, 60)}…` : text

/**
 * Why a call falls outside `authority`'s grammar, or `undefined`: every command must be admitted,
 * and standard input goes with a `load-buffer -` and nothing else.
 */
export const callRefusal = (
  authority: AuthorityName,
  commands: ReadonlyArray<ReadonlyArray<string>>,
  options: RunnerOptions
): string | undefined => {
  const reasons = commands.flatMap((argv) => {
    const why = refusal(authority, argv)
    return why === undefined ? [] : [`${clip(argv[0] ?? "")}: ${clip(why)}`]
  })
  const reads = commands.filter((argv) => argv[0] === "load-buffer").length
  if (options.input === undefined ? reads > 0 : reads !== 1) {
    reasons.push("standard input goes with exactly one load-buffer -")
  }
  if (options.cwd !== undefined && authority !== "TmuxSpawn") reasons.push("only a spawn takes a working directory")
  if (options.signalled !== undefined) {
    const why = refusal(authority, options.signalled)
    if (why !== undefined) reasons.push(`signalled: ${clip(why)}`)
    if (!isBlocking(commands)) reasons.push("signalled goes with a list that waits on a channel")
  }
  return reasons.length === 0 ? undefined : `${authority} refused ${reasons.join("; ")}`
}

/**
 * Whether an invocation blocks until another client acts: it holds a plain `wait-for CHANNEL`
 * (no -S, -L or -U). Such a client must not hold a pool permit, or enough waiters would starve
 * every other command, including the signal that releases them.
 */
export const isBlocking = (commands: ReadonlyArray<ReadonlyArray<string>>): boolean => commands.some(isWait)

/** A plain `wait-for CHANNEL`: it returns only when another client signals the channel. */
export const isWait = (command: ReadonlyArray<string>): boolean =>
  command[0] === "wait-for" && !command.slice(1).some((arg) => /^-[SLU]$/u.test(arg))

/**
 * The authority services over raw runners, each refusing, before anything runs, any command
 * outside its grammar. The live layer and the test fakes are built here alike, so a fake enforces
 * exactly what production enforces. @category constructors
 */
export const makeAuthorities = (runners: Runners): Context.Context<Authorities> => {
  const guarded = <A>(
    authority: AuthorityName,
    commands: ReadonlyArray<ReadonlyArray<string>>,
    options: RunnerOptions,
    effect: () => Effect.Effect<A, TmuxError>
  ): Effect.Effect<A, TmuxError> => {
    const refused = callRefusal(authority, commands, options)
    // The types already forbid most of this; the check keeps the ceiling if a cast or a value slips through.
    if (refused !== undefined) return Effect.die(new Error(refused))
    // One span per tmux invocation, named by the authority that asked, with the commands it ran.
    return Effect.withSpan(Effect.suspend(effect), `${authority}.run`, {
      attributes: { commands: commands.map((argv) => argv[0]).join(" ") }
    })
  }
  const over = <A extends AuthorityName>(authority: A, run: Runner = runners.run): Authority<A> => ({
    run: (commands, options) => {
      const given: RunnerOptions = options ?? {}
      return guarded(authority, commands, given, () => run(commands, given, authority))
    }
  })
  const spawn = over("TmuxSpawn", runners.spawn)
  return Context.make(TmuxObserve, over("TmuxObserve")).pipe(
    Context.add(TmuxChange, over("TmuxChange")),
    Context.add(TmuxSpawn, {
      ...spawn,
      create: (commands, options = {}) =>
        guarded("TmuxSpawn", commands, options, () => runners.create(commands, options))
    }),
    Context.add(TmuxDelete, over("TmuxDelete")),
    Context.add(PaneInput, over("PaneInput")),
    Context.add(PaneCommand, over("PaneCommand")),
    Context.add(PaneRespawn, over("PaneRespawn"))
  )
}
