/**
 * Every name the run protocol of run_shell_command (and this server's paste) puts into tmux, in one
 * table: the pane options, the per-run options, the `wait-for` channels, the paste buffers, the marks
 * a guard or a read prints, and the run ID's form. Everything else (the readers' fields, the command
 * grammar's user options, the leftover sweep's matchers) is derived from it; a check
 * (scripts/protocol-names.ts) fails when any of these names is spelled anywhere else in src/.
 * Pure: the instance tag (domain/instance.ts) is an argument.
 *
 * The pane options that say who holds a pane (see domain/runRecord.ts for the record):
 * - `claim`: the run typed in the pane whose trailer has not yet run. Set with `-o` in the invocation
 *   that types (tmux refuses to set it again, and drops the rest of that list), and unset by the
 *   run's trailer, so a finished run never holds the pane.
 * - `last`: the last run typed in the pane and not yet collected: what a new run reports as
 *   `earlier_run` when nobody collected it.
 * - `collected`: the mark of the pane's last collected run (`CollectedMark`), set by the one call
 *   that collected it and moved to `collectedBefore` (then `collectedBefore2`) by the pane's next
 *   collections: the pane's last three collected runs are told.
 * - `generation` and `typedAt(N)`: the pane's typing generation. A run read generation N with the
 *   pane's state it types from; it sets `typedAt(N+1)` with `-o`, so when another run was typed
 *   since (and took N+1), tmux refuses, and nothing is typed from a view that is out of date.
 */

/** Bytes of randomness in a run's ID: six hex digits. */
export const runIdBytes = 3

const runIdForm = `[0-9a-f]{${runIdBytes * 2}}`

/** A run's ID: what `resume` takes. Six hex digits, never anything else, since it reaches option names. */
export const runIdPattern = new RegExp(`^${runIdForm}$`, "u")

/** The pane options with one value per pane. */
const fixedOptions = {
  claim: "@lmcp_claim",
  last: "@lmcp_last",
  generation: "@lmcp_gen",
  /** The claim's run whose incomplete input C-c did not cancel: the pane stays held (paneClaim.ts). */
  openInput: "@lmcp_open",
  /** The mark of the pane's last collected run (`CollectedMark`): one per pane, replaced by the next. */
  collected: "@lmcp_done",
  /**
   * The two marks before it, moved down at each collection: a run collected as another's
   * `earlier_run`, that one collected in turn, is still told by its own mark.
   */
  collectedBefore: "@lmcp_done1",
  collectedBefore2: "@lmcp_done2",
  /**
   * Where an in-shell run's trailer leaves the shell's pid and option letters (`$$x$-`): it stays with
   * the pane, and says that runs changed that shell's state and whether `set -e` is on.
   */
  shellFlags: "@lmcp_sh",
  /** User options nothing sets: what a guarded unset unsets when the pane is as expected. */
  viewOk: "@lmcp_view_ok",
  none: "@lmcp_none"
} as const

/** The prefix of the option each typing generation's run takes (`typedAt`). */
const generationPrefix = "@lmcp_g"

/** The prefixes of the options named by a run's ID. */
const perRunPrefixes = {
  /** The run's record (domain/runRecord.ts). */
  record: "@lmcp_run_",
  /** Taken (with `-o`) by the one run that takes over a claim whose run never reported. */
  successor: "@lmcp_next_",
  /** Where the output ended and the status, as the trailer records them. */
  end: "@lmcp_end_",
  /** Where the cursor was when the run was typed (see `typedRecord`). */
  typed: "@lmcp_typed_",
  /** The start mark (dash family). */
  start: "@lmcp_start_",
  /** The trailer's template, present while the run is pending. */
  template: "@l",
  /** The start mark's template. */
  markTemplate: "@m"
} as const

/** The prefix of a run's `wait-for` channel; channels with it are reserved (programs/channel.ts). */
export const channelPrefix = "lmcp_"

/** Names of the pane options that hold runs. */
export const paneRunOptions = {
  ...fixedOptions,
  /** Held by the run that typed generation `n`. */
  typedAt: (n: number) => `${generationPrefix}${n}`,
  record: (runId: string) => `${perRunPrefixes.record}${runId}`,
  successor: (runId: string) => `${perRunPrefixes.successor}${runId}`
} as const

/** Names of a run's options and channel. */
export const protocolNames = (runId: string) => ({
  template: `${perRunPrefixes.template}${runId}`,
  markTemplate: `${perRunPrefixes.markTemplate}${runId}`,
  end: `${perRunPrefixes.end}${runId}`,
  typed: `${perRunPrefixes.typed}${runId}`,
  start: `${perRunPrefixes.start}${runId}`,
  channel: `${channelPrefix}${runId}`
})

const escaped = (text: string): string => text.replace(/[.*+?^${}()|[\]\\]/gu, "\\$&")

/**
 * Every user option the protocol sets or unsets, and nothing else: what the command grammar admits in
 * `set-option` (services/TmuxGrammar.ts).
 */
export const protocolOptionPattern = new RegExp(
  `^(?:${Object.values(fixedOptions).map(escaped).join("|")}|${escaped(generationPrefix)}[0-9]{1,16}|` +
    `(?:${Object.values(perRunPrefixes).map(escaped).join("|")})${runIdForm})$`,
  "u"
)

/** The run whose per-run option of `kind` is `name`, or `undefined` when `name` is no such option. */
export const runOfOption = (kind: keyof typeof perRunPrefixes, name: string): string | undefined => {
  const prefix = perRunPrefixes[kind]
  const runId = name.startsWith(prefix) ? name.slice(prefix.length) : undefined
  return runId !== undefined && runIdPattern.test(runId) ? runId : undefined
}

/** The generation whose run's option (`typedAt`) `name` is, or `undefined`. */
export const generationOfOption = (name: string): number | undefined =>
  name.startsWith(generationPrefix) && /^[0-9]{1,16}$/u.test(name.slice(generationPrefix.length))
    ? Number(name.slice(generationPrefix.length))
    : undefined

/** The run whose channel `channel` is, or `undefined`. */
export const runOfChannel = (channel: string): string | undefined => {
  const runId = channel.startsWith(channelPrefix) ? channel.slice(channelPrefix.length) : undefined
  return runId !== undefined && runIdPattern.test(runId) ? runId : undefined
}

/** The name prefix of this server's temporary paste buffers (paste_text's and run_shell_command's). */
export const pasteBufferPrefix = "libtmux-mcp-paste-"

/** An instance tag's form in a name (`<pid>.<start>.<namespace>`, domain/instance.ts). */
const tagForm = "[0-9]+\\.[0-9]+\\.[0-9]*"

/** A paste buffer's name: named by the instance's tag, so cleanup deletes its own and dead instances' only. */
export const pasteBufferName = (tag: string, suffix: string): string => `${pasteBufferPrefix}${tag}-${suffix}`

/** This server's paste buffers (and those of versions that named them by the pid alone): the grammar's check. */
export const pasteBufferPattern = new RegExp(
  `^${escaped(pasteBufferPrefix)}[0-9]+(?:\\.[0-9]+\\.[0-9]*)?-[0-9a-f]+$`,
  "u"
)

/** The instance tag a paste buffer's name carries, or `undefined` (an older name, or not ours). */
export const bufferTag = (name: string): string | undefined =>
  name.startsWith(pasteBufferPrefix)
    ? new RegExp(`^(${tagForm})-`, "u").exec(name.slice(pasteBufferPrefix.length))?.[1]
    : undefined

/**
 * The pane option naming the instance whose recording pipe (`pipe-pane`) the pane has
 * (layers/RecorderLive.ts): a dead instance's pipe may be taken over, a live one's is left alone.
 */
export const recorderOption = "@libtmux-mcp-recorder"

/** What a guard's failing branch expands to, or a read prints between its parts: names no option has. */
export const marks = {
  /** The typing guard's, when the pane changed (domain/typingGuard.ts): followed by `:` and what tmux saw. */
  stale: "lmcp-pane-changed",
  /** The collection's guard's, when the run's record is gone: another call collected it. */
  collected: "lmcp-run-collected",
  /** The answer's guard's (programs/runAnswer.ts), when the pane is no longer as the answer saw it. */
  answerRefused: "lmcp-answer-refused",
  /** The hidden-target guard's (domain/hiddenTargets.ts), when a target is in a connection's hidden session. */
  hiddenTarget: "lmcp-hidden-target",
  /** The line printed between the parts of a run's read: it carries the run's ID. */
  separator: (runId: string) => `lmcp-sep-${runId}`,
  /** The line before each pane's options in the leftover sweep. */
  sweep: (tag: string) => `lmcp-sweep-${tag}`,
  /** A line no pane is likely to hold, for splitting one invocation's output (`hex`: random digits). */
  unique: (kind: "search" | "part", hex: string) => `lmcp-${kind}-${hex}`
} as const

/** Whether `name` is what a protocol guard's failing branch expands to (see `marks`): the grammar admits it. */
export const isGuardMark = (name: string): boolean =>
  name === marks.collected || name.startsWith(`${marks.stale}:`) || name.startsWith(`${marks.answerRefused}:`)

/**
 * The name prefix of the hidden sessions libtmux-mcp's control connections stay attached to
 * (platform/TmuxControl.ts): every tool filters them from what it lists and refuses them as targets,
 * whichever instance's they are, and no session or window may be given a name with it.
 */
export const controlSessionPrefix = "libtmux-mcp-connection-"

/** This instance's hidden session: named by its tag, whose dots tmux would rewrite. */
export const controlSessionName = (tag: string): string => `${controlSessionPrefix}${tag.replaceAll(".", "_")}`

/** The tag of the instance whose hidden session this is, when it is one (`controlSessionName` read back). */
export const controlSessionTag = (sessionName: string): string | undefined =>
  isControlSession(sessionName) ? sessionName.slice(controlSessionPrefix.length).replaceAll("_", ".") : undefined

/** Whether a session is one of the connections' hidden sessions. */
export const isControlSession = (sessionName: string): boolean => sessionName.startsWith(controlSessionPrefix)
