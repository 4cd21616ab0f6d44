/**
 * The closed grammar of the tmux authorities: for each authority service, the commands it admits
 * and, for each command, the flags (with or without a value), the option names and the positional
 * arguments it may carry, as tmux's own `cmd_entry` templates fix what a command accepts
 * (`args = { "t:", 1, 1 }`), narrowed to what the rows need. This one table is the ceiling: the
 * services' command types (Tmux.ts) take their names from it, the one constructor of the contract
 * (`makeAuthorities`) checks every command against it before anything runs, and the host-reach
 * count reads it. To admit a command, a flag or an option, add it here.
 *
 * Security: values tmux expands as formats (`-F`, names, titles, start directories, the format of
 * `display-message`) must be literal: text, `##`, `#[` and `#{name}` only, never `#(…)` (which runs
 * a shell command on the host) or a modifier that expands a value again.
 */
import {
  isGuardMark,
  pasteBufferPattern,
  pasteBufferPrefix,
  protocolOptionPattern,
  runOfOption
} from "../domain/protocolNames.ts"
import { answeredTestOption, templateCommands } from "../domain/runTemplates.ts"

/** How one value (of a flag, or a positional argument) is checked. @category models */
export interface Check {
  /** What it must be, for the refusal's message. */
  readonly what: string
  readonly test: (value: string) => boolean
}

const matching = (pattern: RegExp, what: string): Check => ({ what, test: (value) => pattern.test(value) })
const oneOf = <const T extends string>(...values: ReadonlyArray<T>): Check & { readonly values: ReadonlyArray<T> } => ({
  what: `one of ${values.join(", ")}`,
  test: (value) => (values as ReadonlyArray<string>).includes(value),
  values
})

/** The format elements that expand to fixed text or a plain variable: `##`, `#[`, `#{name}`. */
const formatElements = /#(?:#|\[|\{[A-Za-z@][A-Za-z0-9_@-]*\})/gu

/**
 * Whether tmux expands `value` to fixed text plus plain variables: every `#` starts `##`, `#[` or
 * `#{name}`. A `#(` (a shell command), `#{?…}`, `#{E:…}` or any other modifier fails.
 */
export const isLiteralFormat = (value: string): boolean => !value.replace(formatElements, "").includes("#")

/** `text` split at its commas outside `#{…}`. */
const splitTopLevel = (text: string): Array<string> => {
  const parts = [""]
  let depth = 0
  for (let i = 0; i < text.length; i++) {
    const char = text[i]!
    if (char === "#" && text[i + 1] === "{") depth++
    else if (char === "}" && depth > 0) depth--
    if (char === "," && depth === 0) parts.push("")
    else parts[parts.length - 1] += char
  }
  return parts
}

/**
 * The parts of `#{?test,then,else}` when it only chooses between literal texts: its test a user
 * option's name or `#{==:a,b}` of literal formats, its branches literal. It runs nothing and
 * expands nothing again. `undefined` for any other value.
 */
export const literalChoice = (value: string): { readonly chosen: string; readonly otherwise: string } | undefined => {
  const inner = /^#\{\?(.*)\}$/su.exec(value)?.[1]
  const parts = inner === undefined ? [] : splitTopLevel(inner)
  if (parts.length !== 3) return undefined
  const [test, then, otherwise] = parts as [string, string, string]
  const compared = /^#\{==:(.*)\}$/su.exec(test)?.[1]
  const sides = compared === undefined ? [] : splitTopLevel(compared)
  const testIsPlain = /^@[A-Za-z][A-Za-z0-9_]*$/u.test(test) || (sides.length === 2 && sides.every(isLiteralFormat))
  return testIsPlain && isLiteralFormat(then) && isLiteralFormat(otherwise) ? { chosen: then, otherwise } : undefined
}

/** The value checks. @category models */
export const checks = {
  /** An object ID target: `%1`, `@2`, `$3`, or a session's window index `$3:` / `$3:4`. */
  target: matching(/^(?:%\d+|@\d+|\$\d+(?::\d*)?)$/u, "an ID target (%N, @N, $N, $N:, $N:I)"),
  format: { what: "a literal format (no #( or modifiers)", test: isLiteralFormat } satisfies Check,
  count: matching(/^\d{1,7}$/u, "a whole number"),
  /** A `capture-pane -S`/`-E` row: a line number, or `-` for the start or end. */
  row: matching(/^(?:-|-?\d{1,9})$/u, "a line number or -"),
  size: matching(/^\d{1,5}%?$/u, "cells or a percentage"),
  /** Text tmux does not expand: keys, a channel name, an option or environment variable's name. */
  text: { what: "text", test: () => true } satisfies Check,
  channel: matching(/^[A-Za-z0-9_][A-Za-z0-9_.:-]{0,127}$/u, "a channel name"),
  optionName: matching(/^@?[A-Za-z][A-Za-z0-9_-]*(\[\d{1,5}\])?$/u, "an option name"),
  /** This server's paste buffers (named by the instance's tag, domain/instance.ts), never another client's. */
  buffer: matching(pasteBufferPattern, `a ${pasteBufferPrefix}* buffer`),
  /** Only the empty value: for a format option that must expand to nothing. */
  nothing: oneOf(""),
  /** `load-buffer -`: standard input, never a file. */
  stdin: oneOf("-"),
  layout: oneOf("even-horizontal", "even-vertical", "main-horizontal", "main-vertical", "tiled")
} as const

const onOff = oneOf("on", "off")

/**
 * The options the manage setters name, each with its values: flags and numbers tmux never expands.
 * No `status-*`, hook or other option whose value tmux expands or runs.
 */
export const changeOptions = {
  mouse: onOff,
  "history-limit": checks.count,
  "synchronize-panes": onOff
} as const

/** The copy-mode commands a change may send (`send-keys -X`): none pipes to a shell command. */
export const copyModeCommands = oneOf("cancel", "scroll-up")

/** One command's form: what it may carry. @category models */
export interface Form {
  /** Flags without a value, as letters. */
  readonly switches?: string
  /** Flags with a value, and what the value must be. */
  readonly values?: Readonly<Record<string, Check>>
  /** Flags every use must carry. */
  readonly required?: string
  /** Positional arguments in order; `more` checks any after them. */
  readonly args?: ReadonlyArray<Check>
  /** How many positional arguments it needs at least (default: all of `args`). */
  readonly minArgs?: number
  readonly more?: Check
  /**
   * `set-option`'s options by name, each with its value check. With `-u` no value follows; with
   * `-F` the value is a format and must be literal.
   */
  readonly options?: Readonly<Record<string, Check>>
  /** `set-option`'s user options (`@…`) by name pattern: tmux stores their values, it does not expand them. */
  readonly userOptions?: RegExp
}

const { target, format } = checks
/** A pane, window or session by ID. */
const targeted: Form = { values: { t: target } }
/** `display-message` as every authority may use it: print one literal format for one target, never `-I`. */
const printFormat: Form = { switches: "p", required: "pt", values: { t: target }, args: [format] }
const listSessions: Form = { required: "F", values: { F: format } }
const listPanes: Form = { switches: "as", required: "F", values: { t: target, F: format } }
const capturePane: Form = {
  switches: "pNJea",
  required: "pt",
  values: { t: target, S: checks.row, E: checks.row }
}
/** Client keys for a pane's program: never `-X` (copy mode) or `-H`/`-R`/`-M`. */
const typeKeys: Form = { switches: "l", required: "t", values: { t: target }, args: [checks.text], more: checks.text }
const loadBuffer: Form = { required: "b", values: { b: checks.buffer }, args: [checks.stdin] }
const pasteBuffer: Form = { switches: "dp", required: "bt", values: { b: checks.buffer, t: target } }
const waitFor: Form = { switches: "SLU", args: [checks.channel] }

/**
 * An answered run's discard: C-c alone, after any mode is left: the terminal's input discarded before
 * the shell reads it again (domain/runTemplates.ts `templates`).
 */
const discardForms: Readonly<Record<string, Form>> = {
  "send-keys": { required: "t", values: { t: target }, args: [oneOf("C-c")] },
  "copy-mode": { switches: "q", required: "qt", values: { t: target } }
}

/**
 * `if-shell -F` as a template holds it (runTemplates.ts `ifAnswered`): its test is whether a run's
 * template starts with the discard, its list the discard's commands. With `-F` tmux tests a format
 * instead of running a shell command; the test names one option and holds no `#(`.
 */
const answeredChoice: Form = {
  switches: "F",
  required: "F",
  args: [
    {
      what: "the test of whether a run's template is an answered one",
      test: (value) => answeredTestOption(value) !== undefined
    },
    {
      what: "the discard's commands",
      test: (value) =>
        templateCommands(value)?.every((command) => refusalIn(discardForms, command) === undefined) ?? false
    }
  ]
}

/**
 * The commands a run's template may hold (domain/runTemplates.ts): the protocol's options unset or set
 * on its pane, its channel signalled, the discard (a mode left, C-c to its pane) and the `if-shell -F`
 * that tests for an answered template; nothing that waits, and nothing that reaches the host.
 */
export const templateForms: Readonly<Record<string, Form>> = {
  "set-option": {
    switches: "puF",
    required: "pt",
    values: { t: target },
    options: { "remain-on-exit": checks.nothing, "remain-on-exit-format": checks.nothing },
    userOptions: protocolOptionPattern
  },
  "wait-for": { switches: "S", required: "S", args: [checks.channel] },
  ...discardForms,
  "if-shell": answeredChoice
}

/** A template's value: read back into commands, each admitted by `templateForms`. */
const templateValue: Check = {
  what: "a run template of the protocol's own commands",
  test: (value) => {
    const commands = templateCommands(value)
    return commands !== undefined && commands.every((command) => refusalIn(templateForms, command) === undefined)
  }
}

/** The check of a user option's value: a template's is read as a command list, any other is text. */
const userValue = (name: string): Check =>
  runOfOption("template", name) !== undefined || runOfOption("markTemplate", name) !== undefined
    ? templateValue
    : checks.text

/** The grammar of each authority service, by the service's name. @category models */
export const grammar = {
  TmuxObserve: {
    "list-sessions": listSessions,
    "list-windows": { switches: "a", required: "F", values: { t: target, F: format } },
    "list-panes": listPanes,
    "display-message": printFormat,
    "capture-pane": capturePane,
    "show-options": { switches: "vgAswp", values: { t: target }, args: [checks.optionName] },
    "show-environment": { switches: "g", values: { t: target }, args: [checks.text], minArgs: 0 },
    "show-hooks": { switches: "gw", values: { t: target }, args: [checks.text], minArgs: 0 }
  },
  TmuxChange: {
    "rename-session": { required: "t", values: { t: target }, args: [format] },
    "rename-window": { required: "t", values: { t: target }, args: [format] },
    "select-window": targeted,
    "next-window": targeted,
    "previous-window": targeted,
    "last-window": targeted,
    "select-pane": { switches: "UDLR", required: "t", values: { t: target, T: format } },
    "select-layout": { required: "t", values: { t: target }, args: [checks.layout] },
    "resize-window": { required: "t", values: { t: target, x: checks.count, y: checks.count } },
    "resize-pane": { switches: "Z", required: "t", values: { t: target, x: checks.count, y: checks.count } },
    "move-window": { switches: "d", required: "st", values: { s: target, t: target } },
    "swap-pane": { switches: "d", required: "st", values: { s: target, t: target } },
    "copy-mode": { required: "t", values: { t: target } },
    "set-option": { switches: "gw", values: { t: target }, options: changeOptions },
    "wait-for": waitFor,
    // Only as a copy-mode command, which never reaches the pane's program.
    "send-keys": { switches: "X", required: "Xt", values: { t: target, N: checks.count }, args: [copyModeCommands] },
    // Reads, so that a change and the state it left come back in one invocation.
    "display-message": printFormat,
    "list-panes": listPanes,
    "list-sessions": listSessions
  },
  TmuxSpawn: {
    // The configured process only: no command, no environment, no start directory flag (cwd instead).
    "new-session": {
      switches: "dP",
      values: { F: format, s: format, n: format, x: checks.count, y: checks.count }
    },
    "new-window": { switches: "dP", required: "t", values: { F: format, t: target, n: format } },
    "split-window": { switches: "vhbdP", required: "t", values: { F: format, t: target, l: checks.size } }
  },
  TmuxDelete: {
    "kill-session": targeted,
    "kill-window": targeted,
    "kill-pane": targeted,
    "clear-history": targeted,
    "display-message": printFormat
  },
  PaneInput: {
    "send-keys": typeKeys,
    "load-buffer": loadBuffer,
    "paste-buffer": pasteBuffer,
    "delete-buffer": { required: "b", values: { b: checks.buffer } },
    "display-message": printFormat,
    "list-panes": listPanes
  },
  PaneCommand: {
    "send-keys": typeKeys,
    "load-buffer": loadBuffer,
    "paste-buffer": pasteBuffer,
    "delete-buffer": { required: "b", values: { b: checks.buffer } },
    "wait-for": waitFor,
    // The run protocol's own user options (domain/runRecord.ts, domain/shellProtocol.ts), and what an
    // in-shell run sets to keep its pane after an `exit`: the dead pane shows nothing of its own.
    "set-option": {
      switches: "puoF",
      required: "pt",
      values: { t: target },
      options: { "remain-on-exit": oneOf("on", "off", "failed"), "remain-on-exit-format": checks.nothing },
      userOptions: protocolOptionPattern
    },
    "display-message": printFormat,
    "capture-pane": capturePane,
    "list-panes": listPanes
  },
  // Replacing a pane's process deletes it: only for a row that deletes and runs a pane command.
  PaneRespawn: {
    "respawn-pane": { switches: "k", required: "t", values: { c: format, t: target }, more: checks.text },
    "list-panes": listPanes
  }
} as const satisfies Record<string, Record<string, Form>>

/** The authority services, by name. @category models */
export type AuthorityName = keyof typeof grammar
/** The commands one authority admits. @category models */
export type CommandName<A extends AuthorityName> = keyof typeof grammar[A] & string

/** A parsed command: its flags and their values, and its positional arguments. */
interface Parsed {
  readonly flags: Map<string, string | undefined>
  readonly args: ReadonlyArray<string>
}

/** Splits flags from positional arguments as tmux's `args_parse` does (grouped flags, `--`, `-`). */
const parse = (form: Form, argv: ReadonlyArray<string>): Parsed | string => {
  const flags = new Map<string, string | undefined>()
  let at = 1
  while (at < argv.length) {
    const arg = argv[at]!
    if (!arg.startsWith("-") || arg === "-") break
    at++
    if (arg === "--") break
    for (let i = 1; i < arg.length; i++) {
      const letter = arg[i]!
      const check = form.values?.[letter]
      if (check !== undefined) {
        const value = i + 1 < arg.length ? arg.slice(i + 1) : argv[at++]
        if (value === undefined) return `-${letter} needs a value`
        if (!check.test(value)) return `-${letter} ${JSON.stringify(value)} is not ${check.what}`
        flags.set(letter, value)
        break
      }
      if (!(form.switches ?? "").includes(letter)) return `flag -${letter} is not admitted`
      flags.set(letter, undefined)
    }
  }
  return { flags, args: argv.slice(at) }
}

/** Why `set-option`'s positional arguments fall outside the form's options, or `undefined`. */
const optionRefusal = (form: Form, parsed: Parsed): string | undefined => {
  const unset = parsed.flags.has("u")
  const [name = "", value, ...rest] = parsed.args
  if (rest.length > 0 || (unset ? value !== undefined : value === undefined)) {
    return unset ? "-u takes an option name only" : "an option name and a value are needed"
  }
  const check = form.options !== undefined && Object.hasOwn(form.options, name)
    ? form.options[name]
    : name.startsWith("@") && form.userOptions?.test(name) === true
    ? userValue(name)
    : undefined
  if (check === undefined) {
    // A check the run protocol's lists make (domain/typingGuard.ts, a run's collection): unset a user
    // option of the form's, or else another of its own (a record left empty, runReadBack.ts) or fail on
    // a name no option has (a guard mark, domain/protocolNames.ts).
    const choice = unset ? literalChoice(name) : undefined
    const checksPane = choice !== undefined && form.userOptions?.test(choice.chosen) === true &&
      (isGuardMark(choice.otherwise) || form.userOptions.test(choice.otherwise))
    return checksPane ? undefined : `option ${JSON.stringify(name)} is not admitted`
  }
  if (value === undefined) return undefined
  if (!check.test(value)) return `${name} ${JSON.stringify(value)} is not ${check.what}`
  return parsed.flags.has("F") && !isLiteralFormat(value) && literalChoice(value) === undefined
    ? `${name}'s -F value is neither a literal format nor a choice between literal texts`
    : undefined
}

/** Why `argv` falls outside the grammar `forms`, or `undefined` when it is admitted. */
export const refusalIn = (
  forms: Readonly<Record<string, Form>>,
  argv: ReadonlyArray<string>
): string | undefined => {
  const name = argv[0] ?? ""
  const form = Object.hasOwn(forms, name) ? forms[name] : undefined
  if (form === undefined) return "the command is not admitted"
  const parsed = parse(form, argv)
  if (typeof parsed === "string") return parsed
  const missing = [...(form.required ?? "")].find((letter) => !parsed.flags.has(letter))
  if (missing !== undefined) return `-${missing} is required`
  if (form.options !== undefined || form.userOptions !== undefined) return optionRefusal(form, parsed)
  const args = form.args ?? []
  if (parsed.args.length < (form.minArgs ?? args.length)) return `${args.length} argument(s) are needed`
  for (const [i, value] of parsed.args.entries()) {
    const check = args[i] ?? form.more
    if (check === undefined) return "too many arguments"
    if (!check.test(value)) return `argument ${JSON.stringify(value)} is not ${check.what}`
  }
  return undefined
}

/** Why `argv` falls outside `authority`'s grammar, or `undefined` when it is admitted. @category constructors */
export const refusal = (authority: AuthorityName, argv: ReadonlyArray<string>): string | undefined =>
  refusalIn(grammar[authority], argv)

/** tmux commands that run a shell command on the host, outside any pane, or bind commands to run later. */
const hostCommands = [
  "run-shell",
  "if-shell",
  "pipe-pane",
  "display-popup",
  "display-menu",
  "command-prompt",
  "confirm-before",
  "source-file",
  "set-hook",
  "bind-key"
]

/** Options tmux never expands or runs (flags, choices and numbers): any other may hold `#(…)` or a command. */
const inertOptions = ["mouse", "history-limit", "synchronize-panes", "remain-on-exit"]

/** Whether a form can carry a copy-mode command that pipes to a shell command (`copy-pipe*`, `pipe*`). */
const admitsPipe = (form: Form): boolean => {
  if (!(form.switches ?? "").includes("X")) return false
  const listed = form.args?.length === 1 && form.more === undefined && "values" in form.args[0]!
    ? form.args[0].values as ReadonlyArray<string>
    : undefined
  return listed === undefined || listed.some((command) => /pipe/u.test(command))
}

/**
 * Whether a grammar admits anything that runs a command on the host: a host command, a copy-mode
 * command that pipes, a tmux option other than a user option (`@…`) or an inert one, or a run template
 * that could hold one.
 */
export const reachesHost = (forms: Readonly<Record<string, Form>>): boolean =>
  Object.entries(forms).some(([name, form]) =>
    // The template's `if-shell -F` tests a format and runs the discard's commands only.
    (hostCommands.includes(name) && form !== answeredChoice) || admitsPipe(form) ||
    // A form that stores the protocol's options stores its templates, which the trailer runs.
    (forms !== templateForms && form.userOptions !== undefined && reachesHost(templateForms)) ||
    Object.entries(form.options ?? {}).some(([option, check]) =>
      !option.startsWith("@") && !inertOptions.includes(option) && check !== checks.nothing
    )
  )
