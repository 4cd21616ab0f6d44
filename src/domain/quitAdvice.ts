/**
 * How to quit a program that holds a pane's keyboard, said so that following it works: by the
 * program's name where its way out is known (vi and vim leave with Escape then `:q!`, nano with
 * C-x; neither quits with `q` or C-c), by its kind otherwise, and for a full-screen program not
 * known here, honestly that its key depends on it. Said for the two ways of typing into a pane:
 * `resume` with `answer_key`/`answer`, and `send_keys`.
 */
import type { BlockKind } from "./keyboard.ts"

/** One step of a way out: a key alone, or a line of text followed by Enter. @category models */
export type QuitStep = { readonly key: string } | { readonly line: string }

/** A known way out: its steps, and what to know about them. @category models */
export interface QuitWay {
  readonly steps: ReadonlyArray<QuitStep>
  readonly note?: string
}

/** Which tool types the steps: a blocked run's `resume`, or `send_keys`. @category models */
export type QuitVia = "answer" | "send_keys"

/** vi and its kin, as the command or executable is named (Debian's vim.basic, vim.tiny, nvim ...). */
const viNames = /^(?:vi|vim|nvim|nvi|view|vimdiff|rvim|rview|vim\.[a-z0-9]+)$/u
const nanoNames = /^(?:nano|rnano|pico)$/u
const qNames = /^(?:top|htop|btop|atop|less|more|most|pg|lv)$/u

/** The way out of a program by its names (its command name, the file name of its executable). */
export const knownWay = (names: ReadonlyArray<string | undefined>): QuitWay | undefined => {
  const known = (pattern: RegExp) => names.some((name) => name !== undefined && pattern.test(name))
  if (known(viNames)) {
    // Escape first: in insert mode, ":q!" would be typed into the file.
    return {
      steps: [{ key: "Escape" }, { line: ":q!" }],
      note: "this leaves without saving; \":wq\" instead of \":q!\" saves"
    }
  }
  if (known(nanoNames)) {
    return {
      steps: [{ key: "C-x" }],
      note: "when it then asks whether to save the changes, the key n leaves without saving, y saves"
    }
  }
  if (known(qNames)) return { steps: [{ key: "q" }] }
  return undefined
}

/** The keys that quit a program of each kind not known by name, as send_keys takes them. */
export const quitKeys: Record<BlockKind, string> = {
  "full-screen": "q or C-c",
  "line-editor": "C-d, or its own exit command",
  pager: "q",
  prompt: "C-c",
  stdin: "C-d or C-c",
  secret: "C-c"
}

const stepText = (step: QuitStep, via: QuitVia): string =>
  "key" in step
    ? via === "answer" ? `answer_key "${step.key}"` : `send_keys "${step.key}" with enter false`
    : via === "answer"
    ? `answer "${step.line}"`
    : `send_keys "${step.line}"`

/**
 * What to type to quit a program of `kind` named `names`, typed `via` a resume's answer or
 * send_keys: the steps in order, then a note in parentheses; it follows "quit it with".
 */
export const quitAdvice = (kind: BlockKind, names: ReadonlyArray<string | undefined>, via: QuitVia): string => {
  const way = knownWay(names)
  if (way !== undefined) {
    const steps = way.steps.map((step) => stepText(step, via)).join(", then ")
    return way.note === undefined ? steps : `${steps} (${way.note})`
  }
  const tool = via === "answer" ? "answer_key" : "send_keys with enter false"
  if (kind === "full-screen") {
    return `its own quit key, with ${tool}: which key depends on the program (its screen, read with ` +
      "capture_pane, may name it; q quits many, such as top; C-c interrupts many others; vi and vim need " +
      "Escape, then the line :q!)"
  }
  return `${tool} (${quitKeys[kind]})`
}
