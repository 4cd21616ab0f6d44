/**
 * One pane's options as tmux 3.3a keeps them, for the run machine's property: `set-option` with `-p`,
 * `-u`, `-o` (refused with tmux's "already set: NAME" when set), `-F`, and an option name that is itself
 * a format (tmux expands it: a guard whose name expands to no valid option fails with "invalid option:
 * NAME", and tmux drops the rest of the list). Formats know `#{NAME}`, `#{?COND,A,B}` and `#{==:A,B}`.
 */

/** Splits `text` at its top-level commas (those outside any `#{…}`). */
const splitTop = (text: string): Array<string> => {
  const parts: Array<string> = []
  let depth = 0
  let from = 0
  for (let i = 0; i < text.length; i++) {
    if (text.startsWith("#{", i)) {
      depth++
      i++
    } else if (text[i] === "}") depth--
    else if (text[i] === "," && depth === 0) {
      parts.push(text.slice(from, i))
      from = i + 1
    }
  }
  parts.push(text.slice(from))
  return parts
}

/** The end of the `#{…}` that opens at `start`. */
const closing = (text: string, start: number): number => {
  let depth = 0
  for (let i = start; i < text.length; i++) {
    if (text.startsWith("#{", i)) {
      depth++
      i++
    } else if (text[i] === "}" && --depth === 0) return i
  }
  return text.length
}

/** Expands a tmux format over `lookup` (a variable or option's value, "" when unset). */
export const expand = (text: string, lookup: (name: string) => string): string => {
  let out = ""
  for (let i = 0; i < text.length; i++) {
    if (!text.startsWith("#{", i)) {
      out += text[i]
      continue
    }
    const end = closing(text, i)
    const body = text.slice(i + 2, end)
    i = end
    if (body.startsWith("?")) {
      const [condition = "", yes = "", no = ""] = splitTop(body.slice(1))
      const value = condition.includes("#{") ? expand(condition, lookup) : lookup(condition)
      out += expand(value !== "" && value !== "0" ? yes : no, lookup)
    } else if (body.startsWith("==:")) {
      const [a = "", b = ""] = splitTop(body.slice(3))
      out += expand(a, lookup) === expand(b, lookup) ? "1" : "0"
    } else out += lookup(body)
  }
  return out
}

const paneOptions = new Set(["remain-on-exit", "remain-on-exit-format"])

/** One `set-option` against `options`: `{}` when done, or tmux's refusal. */
export const setOption = (
  options: Map<string, string>,
  args: ReadonlyArray<string>,
  lookup: (name: string) => string
): { readonly error?: string } => {
  let flags = ""
  const words: Array<string> = []
  for (let i = 0; i < args.length; i++) {
    const arg = args[i]!
    if (arg === "-t") i++
    else if (arg.startsWith("-t")) continue
    else if (arg.startsWith("-") && words.length === 0) flags += arg.slice(1)
    else words.push(arg)
  }
  const name = expand(words[0] ?? "", lookup)
  if (!name.startsWith("@") && !paneOptions.has(name)) return { error: `invalid option: ${name}` }
  if (flags.includes("u")) {
    options.delete(name)
    return {}
  }
  if (flags.includes("o") && options.has(name)) return { error: `already set: ${name}` }
  const value = words[1] ?? ""
  options.set(name, flags.includes("F") ? expand(value, lookup) : value)
  return {}
}
