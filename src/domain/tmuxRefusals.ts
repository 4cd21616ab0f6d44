/**
 * What tmux's error text says, read in one place: the only code that matches the messages tmux
 * prints on standard error when it refuses a command (or cannot reach its server). Everything else
 * branches on the typed refusal. The messages are those of tmux 3.2 and 3.3a (the same in both,
 * but for an argument count: see `TooManyArguments`), and of tmux's source since.
 *
 * tmux stops a command list at the first command that fails and prints that one message, so the
 * first line that reads as a refusal is the refusal.
 */

/** A refusal tmux printed, by what it says. @category models */
export type TmuxRefusal =
  /** `set-option -o` of an option that is set: `already set: @name`. */
  | { readonly _tag: "AlreadySet"; readonly option: string }
  /** No such option (or an unset user option, or a hook): `invalid option: name`. */
  | { readonly _tag: "InvalidOption"; readonly option: string }
  /** A prefix of several options: `ambiguous option: name`. */
  | { readonly _tag: "AmbiguousOption"; readonly option: string }
  /** An option set in a scope that has no such option: `unknown option: name`. */
  | { readonly _tag: "UnknownOption"; readonly option: string }
  /**
   * A target that names nothing: `can't find pane: %9` (target lookup), `no such pane: %9` (an
   * option's target), or `no current target` (`kind` "current", no target given and none implied).
   */
  | {
    readonly _tag: "TargetMissing"
    readonly kind: "pane" | "window" | "session" | "current"
    readonly target: string
  }
  /** `new-session -s` or `rename-session` with a name in use: `duplicate session: name`. */
  | { readonly _tag: "DuplicateSession"; readonly name: string }
  /** `show-environment NAME` of a variable that is not set: `unknown variable: NAME`. */
  | { readonly _tag: "UnknownVariable"; readonly name: string }
  /**
   * More arguments than the command takes: `command show-hooks: too many arguments (need at most 1)`
   * (3.3a; 3.2 says `usage: show-hooks …`, which any malformed command gets, so it is not read as this).
   */
  | { readonly _tag: "TooManyArguments"; readonly command: string }
  /** `unknown command: name`. */
  | { readonly _tag: "UnknownCommand"; readonly name: string }
  /**
   * No server on the socket (`no server running on /path`: nothing listens; `error connecting to /path
   * (No such file or directory)`: no socket file), or the server went away while the command was in
   * flight (`server exited unexpectedly`). Also read: `(Connection refused)` and `lost server`, which
   * older tmux printed (3.2 says `no server running on` for a refused connection).
   */
  | { readonly _tag: "ServerAbsent" }
  /** Any other text. */
  | { readonly _tag: "Other" }

type Kind = "pane" | "window" | "session"

/** Each message's form, and the refusal it says (`m`: the match). */
const forms: ReadonlyArray<readonly [RegExp, (m: RegExpExecArray) => TmuxRefusal]> = [
  [/^already set: (.+)$/u, (m) => ({ _tag: "AlreadySet", option: m[1]! })],
  [/^invalid option: (.+)$/u, (m) => ({ _tag: "InvalidOption", option: m[1]! })],
  [/^ambiguous option: (.+)$/u, (m) => ({ _tag: "AmbiguousOption", option: m[1]! })],
  [/^unknown option: (.+)$/u, (m) => ({ _tag: "UnknownOption", option: m[1]! })],
  [/^(?:can't find|no such) (pane|window|session): (.*)$/u, (m) => ({
    _tag: "TargetMissing",
    kind: m[1] as Kind,
    target: m[2]!
  })],
  [/^no current target$/u, () => ({ _tag: "TargetMissing", kind: "current", target: "" })],
  [/^duplicate session: (.+)$/u, (m) => ({ _tag: "DuplicateSession", name: m[1]! })],
  [/^unknown variable: (.+)$/u, (m) => ({ _tag: "UnknownVariable", name: m[1]! })],
  [/^command (\S+): too many arguments\b/u, (m) => ({ _tag: "TooManyArguments", command: m[1]! })],
  [/^unknown command: (.+)$/u, (m) => ({ _tag: "UnknownCommand", name: m[1]! })],
  [/^no server running on .+$/u, () => ({ _tag: "ServerAbsent" })],
  [/^error connecting to .+ \((?:No such file or directory|Connection refused)\)$/u, () => ({ _tag: "ServerAbsent" })],
  [/^(?:server exited unexpectedly|lost server)$/u, () => ({ _tag: "ServerAbsent" })]
]

/** The refusal tmux's standard error (`stderr`) says. */
export const tmuxRefusal = (stderr: string): TmuxRefusal => {
  for (const line of stderr.split("\n")) {
    for (const [form, refusal] of forms) {
      const match = form.exec(line.trim())
      if (match !== null) return refusal(match)
    }
  }
  return { _tag: "Other" }
}
