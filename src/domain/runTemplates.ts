/**
 * The templates a run's trailer and start mark run (`@l<id>`, `@m<id>`): tmux command lists the server
 * stores on the pane before typing, which the shell hands to `tmux run -C` (domain/shellProtocol.ts).
 * They are built here only, by one typed constructor whose commands are the protocol's own (unsetting and
 * setting its options on its pane, signalling its channel, an answered run's discard, and the
 * `if-shell -F` that tests for one): a `run-shell` or any other command does not type-check
 * (test/types/fail/template-run-shell.ts). The command grammar reads a template back and
 * checks each of its commands like any command list (`templateCommands`, services/TmuxGrammar.ts), so a
 * value that holds anything else is refused before it reaches tmux.
 */
import { paneRunOptions, protocolNames, runOfOption } from "./protocolNames.ts"

/** The discard an answered run's trailer makes: any mode left, then C-c to its pane. */
type DiscardCommand =
  | readonly ["send-keys", "-t", string, "C-c"]
  | readonly ["copy-mode", "-q", "-t", string]

declare const discardBrand: unique symbol
/** `ifAnswered`'s test and its list, as only it builds them. */
type Discard = string & { readonly [discardBrand]: "Discard" }

/** A command a template may hold: the protocol's own, on its own pane. @category models */
export type TemplateCommand =
  | readonly ["set-option", "-pu", "-t", string, string]
  | readonly ["set-option", "-pF", "-t", string, string, string]
  | readonly ["wait-for", "-S", string]
  | readonly ["if-shell", "-F", Discard, Discard]
  | DiscardCommand

declare const templateBrand: unique symbol
/** A template's text, as `template` renders it. @category models */
export type Template = string & { readonly [templateBrand]: "Template" }

/** Words tmux's parser reads as they are; any other is single-quoted (a template holds no `'`). */
const bare = /^[A-Za-z0-9_@%:.-]+$/u

/**
 * Renders `commands` as one tmux command list. With `open`, the last command's last word is left
 * unquoted at its end: the trailer appends the exit status and the closing quote.
 */
export const template = (commands: readonly [TemplateCommand, ...Array<TemplateCommand>], open = false): Template => {
  const words = (command: TemplateCommand, last: boolean) =>
    command.map((word, index) => {
      if (word.includes("'")) throw new Error(`a template's word holds a quote: ${word}`)
      const final = last && open && index === command.length - 1
      return final ? `'${word}` : bare.test(word) ? word : `'${word}'`
    }).join(" ")
  return commands.map((command, index) => words(command, index === commands.length - 1)).join(" ; ") as Template
}

/** The discard's commands: a pane in a mode (a person scrolling) would take the C-c as the mode's key. */
const discardCommands = (paneId: string): [DiscardCommand, DiscardCommand] => [
  ["copy-mode", "-q", "-t", paneId],
  ["send-keys", "-t", paneId, "C-c"]
]

/**
 * The test `ifAnswered` makes: whether the run's template, as it is when the test runs, is the one an
 * answer stored (it starts with the discard's `copy-mode`).
 */
export const answeredTest = (runId: string): string => `#{m:copy-mode*,#{${protocolNames(runId).template}}}`

/** The template option `test` reads, when it is an `answeredTest` (read back by the grammar and the fake tmux). */
export const answeredTestOption = (test: string): string | undefined => {
  const option = /^#\{m:copy-mode\*,#\{([^{}#]+)\}\}$/u.exec(test)?.[1]
  const runId = option === undefined ? undefined : runOfOption("template", option)
  return runId !== undefined && answeredTest(runId) === test ? option : undefined
}

/**
 * The discard, when an answer rewrote the template after this trailer's `run -C` read it: `run -C`
 * expands its template as it starts and runs the commands a turn of tmux's event loop later, and an
 * answer's list can run in that turn. `if-shell -F` tests the template as it is when the trailer's
 * list runs, in the same list as the claim's release and the end record, so an answer either comes
 * before that (and is discarded) or finds the run ended (and is refused). With `-F` tmux tests
 * a format instead of running a shell command, and the list is the discard's own commands.
 */
const ifAnswered = (
  runId: string,
  paneId: string
): TemplateCommand => [
  "if-shell",
  "-F",
  answeredTest(runId) as Discard,
  template(discardCommands(paneId)) as string as Discard
]

/** The options an in-shell run sets to keep its pane after an `exit`, unset again (see `keepPaneCommands`). */
const restoreCommands = (paneId: string): ReadonlyArray<TemplateCommand> => [
  ["set-option", "-pu", "-t", paneId, "remain-on-exit"],
  ["set-option", "-pu", "-t", paneId, "remain-on-exit-format"]
]

const position = "#{history_size} #{cursor_y} #{cursor_x}"

/**
 * The template values the server stores before typing: what the trailer and the mark run.
 * `restorePane`: the run kept its pane for an `exit` (see `keepPaneCommands`), and its trailer,
 * which proves the shell lives, restores it. `flush`: the run was answered, and what its program
 * left unread of the answer must never reach the shell (below).
 */
export const templates = (runId: string, paneId: string, restorePane = false, flush = false) => {
  const names = protocolNames(runId)
  const release: TemplateCommand = ["set-option", "-pu", "-t", paneId, paneRunOptions.claim]
  // The pane's claim released (see domain/runRecord.ts), the signal, then the record, whose
  // quoted value the status the trailer appends completes: all in one list.
  const end: Array<TemplateCommand> = [
    ...(restorePane ? restoreCommands(paneId) : []),
    ["wait-for", "-S", names.channel],
    ["set-option", "-pF", "-t", paneId, names.end, `${position} `]
  ]
  return {
    // An answer its program stopped reading for is still in the terminal's input, where the shell
    // would read it as a command. C-c makes the terminal discard its input; its SIGINT reaches the
    // trailer's tmux client, in front while this list runs, which ignores it. The answer stores the
    // `flush` template; one stored before it tests for that as it runs (`ifAnswered`).
    end: template(
      flush ? [...discardCommands(paneId), release, ...end] : [ifAnswered(runId, paneId), release, ...end],
      true
    ),
    mark: template([["set-option", "-pF", "-t", paneId, names.start, position]])
  }
}

/**
 * A template's text read back into its commands, as tmux's parser splits it (words, single quotes,
 * ` ; ` between commands), with the trailer's status appended to an open one; `undefined` when it
 * does not read as a template (a double quote, an escape, a brace, an unclosed quote before the end).
 */
export const templateCommands = (text: string): ReadonlyArray<ReadonlyArray<string>> | undefined => {
  const commands: Array<Array<string>> = [[]]
  let at = 0
  while (at < text.length) {
    if (text[at] === " ") {
      at++
      continue
    }
    if (text[at] === "'") {
      const close = text.indexOf("'", at + 1)
      // Open only at its end: the trailer's status closes it.
      const end = close === -1 ? text.length : close
      commands.at(-1)!.push(close === -1 ? `${text.slice(at + 1)}0` : text.slice(at + 1, end))
      at = end + 1
      continue
    }
    const next = text.indexOf(" ", at)
    const word = text.slice(at, next === -1 ? text.length : next)
    at += word.length
    if (word === ";") commands.push([])
    else if (bare.test(word)) commands.at(-1)!.push(word)
    else return undefined
  }
  return commands.every((command) => command.length > 0) ? commands : undefined
}
