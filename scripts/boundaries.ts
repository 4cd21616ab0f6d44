/**
 * The boundary rules for tool code (src/tools/**, src/programs/**): what the compiler cannot see.
 * A tool reaches tmux only through the authority services its row is given, so it may not
 *
 * - import a layer (`layer-import`) or the raw argv runner (`raw-runner`),
 * - import a way to start processes or threads (`process-import`),
 * - reach past its services: `serviceOption`, `provide*`, `updateContext`, `Effect.context`, `Layer`,
 *   `Context.get*`/`pick`/`omit`/`merge`/`add`/`make` (`service-escape`),
 * - hand tmux a format it built from other text (`caller-built-format`). Format positions: the value
 *   after `-F`, `-n`, `-c`, `-T` (and `-s` in a file that issues `new-session`), and the last element
 *   of a `display-message`, `rename-session` or `rename-window` argv. A format there is a string
 *   literal, a template whose every `${}` is itself allowed, a literalizing helper (below) imported
 *   from its home module, or a local `const` whose value is allowed. A helper's own arguments are
 *   its business: each literalizes or fixes what it is given.
 * - define a helper's name outside its home module (`helper-shadowed`).
 *
 * The domain (src/domain/**, `domainViolations`) does no I/O: it imports no Node module that reaches
 * files, processes, the network or the terminal, and no platform or layer module (`domain-io`); nor
 * anything built on it: no service, program, tool, dispatch, hub, startup, wire or generated module
 * (`domain-depends-upward`). Across src/**, no module imports itself through others (`import-cycle`,
 * `importCycles`), type-only imports included.
 *
 * Regexes over the text with comments (and, for names, string contents) blanked, so positions and
 * lines still match the source. Pure: the command is check-boundaries.ts.
 */
import { dirname, relative, resolve } from "node:path"

/** The literalizing helpers and the module each lives in. */
export const literalizers: Readonly<Record<string, string>> = {
  literalizeFormat: "src/domain/names.ts",
  formatOf: "src/services/TmuxReads.ts",
  FS: "src/services/TmuxReads.ts",
  RS: "src/services/TmuxReads.ts",
  spawnedFormat: "src/programs/spawn.ts",
  variableFormat: "src/programs/formats.ts",
  uniqueMarker: "src/programs/formats.ts",
  headFormat: "src/programs/runHead.ts",
  endFormat: "src/programs/runHead.ts",
  separator: "src/programs/runHead.ts"
}

/** Platform modules a program may import: they read this machine once and grant nothing (no tmux, no process). */
const programReads = /(^|\/)platform\/(thisInstance|files)(\.ts)?$/u

/** Node modules that do I/O (files, processes, threads, network, terminal, the OS). */
const ioModules = new RegExp(
  "^(node:)?(fs|fs/promises|child_process|worker_threads|cluster|net|tls|http|https|http2|dgram|dns|os|readline|" +
    "tty|process|inspector|v8|vm)$",
  "u"
)

/** One broken rule at one place. */
export interface Violation {
  readonly rule: string
  readonly line: number
  readonly detail: string
}

/** Blanks comments, and with `strings` also the text of string and template literals (not `${}` code). */
export const blank = (source: string, strings: boolean): string => {
  const out = source.split("")
  const wipe = (from: number, to: number) => {
    for (let i = from; i < to; i++) if (out[i] !== "\n") out[i] = " "
  }
  // Template nesting: each entry is the brace depth at which a `${` opened.
  const templates: Array<number> = []
  let depth = 0
  let i = 0
  const template = () => {
    // At a backtick or a `}` that closes a substitution: scan text to the next `${` or closing backtick.
    const start = i
    i++
    while (i < source.length && source[i] !== "`" && !(source[i] === "$" && source[i + 1] === "{")) {
      i += source[i] === "\\" ? 2 : 1
    }
    if (strings) wipe(start + 1, i)
    if (source[i] === "$") {
      templates.push(depth)
      i += 2
    } else i++
  }
  while (i < source.length) {
    const c = source[i]!
    const next = source[i + 1]
    if (c === "/" && next === "/") {
      const end = source.indexOf("\n", i)
      wipe(i, end === -1 ? source.length : end)
      i = end === -1 ? source.length : end
    } else if (c === "/" && next === "*") {
      const end = source.indexOf("*/", i + 2) + 2
      wipe(i, end)
      i = end
    } else if (c === "\"" || c === "'") {
      const start = i++
      while (i < source.length && source[i] !== c && source[i] !== "\n") i += source[i] === "\\" ? 2 : 1
      if (strings) wipe(start + 1, i)
      i++
    } else if (c === "`") template()
    else if (c === "}" && templates.at(-1) === depth) {
      templates.pop()
      template()
    } else if (c === "/" && /[(,=:[!&|?{};]\s*$|^\s*$|return\s*$/u.test(source.slice(Math.max(0, i - 12), i))) {
      // A regex literal: skip it whole, character classes included.
      let inClass = false
      i++
      while (i < source.length && (inClass || source[i] !== "/") && source[i] !== "\n") {
        if (source[i] === "[") inClass = true
        else if (source[i] === "]") inClass = false
        i += source[i] === "\\" ? 2 : 1
      }
      i++
    } else {
      if (c === "{") depth++
      else if (c === "}") depth--
      i++
    }
  }
  return out.join("")
}

const lineAt = (text: string, index: number) => text.slice(0, index).split("\n").length

/**
 * The expression that starts at `from`: up to the first `,`, `]`, `)` or `}` outside brackets and
 * literals, and with `statement` also the first `;` or line end (an initializer).
 */
const expressionAt = (code: string, bare: string, from: number, statement = false): string => {
  let depth = 0
  let i = from
  for (; i < code.length; i++) {
    const c = bare[i]!
    if ("([{".includes(c)) depth++
    else if (")]}".includes(c)) {
      if (depth === 0) break
      depth--
    } else if (depth === 0 && (c === "," || (statement && (c === ";" || c === "\n")))) break
  }
  return code.slice(from, i).trim().replace(/\s+as\s+(const|string)$/u, "")
}

/** The top-level elements of the array literal whose `[` is at `open`. */
const elementsAt = (code: string, bare: string, open: number): ReadonlyArray<string> => {
  const elements: Array<string> = []
  let i = open + 1
  while (i < code.length && bare[i] !== "]") {
    const element = expressionAt(code, bare, i)
    if (element !== "") elements.push(element)
    i = code.indexOf(element, i) + element.length
    while (i < code.length && /[\s,]/u.test(bare[i]!)) i++
  }
  return elements
}

/** The `${}` substitutions of a template literal that is the whole expression, or undefined. */
const substitutions = (expression: string): ReadonlyArray<string> | undefined => {
  if (!expression.startsWith("`") || !expression.endsWith("`")) return undefined
  const bare = blank(expression, true)
  const found: Array<string> = []
  let i = 0
  while ((i = bare.indexOf("${", i)) !== -1) {
    let depth = 0
    let end = i + 2
    for (; end < bare.length; end++) {
      if (bare[end] === "{") depth++
      else if (bare[end] === "}" && depth-- === 0) break
    }
    found.push(expression.slice(i + 2, end).trim())
    i = end
  }
  // The whole expression must be one template: nothing but text between its backticks.
  return bare.slice(1, -1).includes("`") ? undefined : found
}

/** Checks one file's source; `path` is relative to the repository root. */
export const violations = (path: string, source: string): ReadonlyArray<Violation> => {
  const code = blank(source, false)
  const bare = blank(source, true)
  const found: Array<Violation> = []
  const report = (rule: string, index: number, detail: string) =>
    found.push({ rule, line: lineAt(code, index), detail })

  for (const match of code.matchAll(/\bfrom\s+(["'])([^"']+)\1|\bimport\s*\(\s*(["'])([^"']+)\3/gu)) {
    const spec = match[2] ?? match[4] ?? ""
    if (programReads.test(spec)) continue
    if (/(^|\/)platform\/TmuxExec(\.ts)?$/u.test(spec)) {
      report("raw-runner", match.index, `imports the raw runner ${spec}`)
    } else if (/(^|\/)(layers|platform|startup|wire|hub)\//u.test(spec)) {
      // The live implementations and the code around them: a tool gets only its row's services.
      report("layer-import", match.index, `imports the implementation ${spec}`)
    } else if (spec === "effect/Layer") report("service-escape", match.index, "imports effect/Layer")
    if (/^(node:)?(child_process|worker_threads|cluster)$/u.test(spec)) {
      report("process-import", match.index, `imports ${spec}`)
    }
  }
  // One pattern from its alternatives (a single literal would not fit the line width); matches come in source order.
  const escapes = new RegExp(
    [
      String.raw`\b(serviceOption|provide|provide[A-Z]\w*|updateContext|updateService)\b`,
      String.raw`\bEffect\.context\b`,
      String.raw`\bLayer\.\w+`,
      String.raw`\bContext\.(get\w*|pick|omit|merge\w*|add|make)\b`
    ].join("|"),
    "gu"
  )
  for (const match of bare.matchAll(escapes)) report("service-escape", match.index, `uses ${match[0]}`)

  const imports = new Map<string, string>()
  for (const match of code.matchAll(/\bimport\s*(?:type\s*)?\{([^}]*)\}\s*from\s*(["'])([^"']+)\2/gu)) {
    for (
      const name of match[1]!.split(",").map((part) => part.trim().split(/\s+as\s+/u).at(-1)!.replace(/^type\s+/u, ""))
    ) {
      if (name !== "") imports.set(name, relative(".", resolve(dirname(path), match[3]!)))
    }
  }
  const locals = new Map<string, Array<string>>()
  for (const match of code.matchAll(/\b(?:const|let|var)\s+([A-Za-z_$][\w$]*)\s*(?::[^=]+)?=\s*/gu)) {
    const initializer = expressionAt(code, bare, match.index + match[0].length, true)
    locals.set(match[1]!, [...(locals.get(match[1]!) ?? []), initializer])
  }
  for (const match of code.matchAll(/\b(?:const|let|var|function)\s+([A-Za-z_$][\w$]*)/gu)) {
    const home = literalizers[match[1]!]
    if (home !== undefined && home !== path) {
      report("helper-shadowed", match.index, `defines ${match[1]}, a literalizing helper of ${home}`)
    }
  }

  const allowed = (expression: string, depth = 0): boolean => {
    if (/^(["'])(?:(?!\1)[^\\\n]|\\.)*\1$/u.test(expression)) return true
    const parts = substitutions(expression)
    if (parts !== undefined) return parts.every((part) => allowed(part, depth))
    const named = /^([A-Za-z_$][\w$]*)(\s*\([\s\S]*\))?$/u.exec(expression)
    if (named === null) return false
    const name = named[1]!
    const home = literalizers[name]
    if (home !== undefined) return home === path || imports.get(name) === home
    // A local constant (not a function) whose every value is an allowed format.
    const values = locals.get(name)
    return named[2] === undefined && depth < 3 && values !== undefined &&
      values.every((value) => allowed(value, depth + 1))
  }
  const check = (expression: string, index: number, position: string) => {
    if (!allowed(expression)) {
      report(
        "caller-built-format",
        index,
        `${position} is ${JSON.stringify(expression)}, not a literal or a literalizing helper`
      )
    }
  }

  const newSession = /(["'])new-session\1/u.test(code)
  for (const match of code.matchAll(/(["'])(-F|-n|-c|-T|-s)\1\s*,\s*/gu)) {
    if (match[2] === "-s" && !newSession) continue
    check(expressionAt(code, bare, match.index + match[0].length), match.index, `the ${match[2]} value`)
  }
  for (const match of code.matchAll(/\[\s*(["'])(display-message|rename-session|rename-window)\1\s*,/gu)) {
    const elements = elementsAt(code, bare, match.index)
    check(elements.at(-1) ?? "", match.index, `the format of ${match[2]}`)
  }
  return found.sort((a, b) => a.line - b.line)
}

/** The import specifiers of a source (static and dynamic), with the index of each. */
const importsOf = (source: string): ReadonlyArray<{ readonly spec: string; readonly index: number }> =>
  [
    ...blank(source, false).matchAll(
      /\bfrom\s+(["'])([^"']+)\1|\bimport\s*\(\s*(["'])([^"']+)\3|^import\s+(["'])([^"']+)\5/gmu
    )
  ]
    .map((match) => ({ spec: match[2] ?? match[4] ?? match[6] ?? "", index: match.index }))

/** Checks one domain file's source: it does no I/O and imports nothing that does. */
export const domainViolations = (path: string, source: string): ReadonlyArray<Violation> => {
  const code = blank(source, false)
  return importsOf(source).flatMap(({ spec, index }) => {
    const rule = ioModules.test(spec) || /(^|\/)(platform|layers)\//u.test(spec)
      ? "domain-io"
      : /(^|\/)(services|programs|tools|dispatch|hub|startup|wire|generated)\//u.test(spec)
      ? "domain-depends-upward"
      : undefined
    return rule === undefined ? [] : [{ rule, line: lineAt(code, index), detail: `${path} imports ${spec}` }]
  })
}

/**
 * The import cycles among `files` (path relative to the repository root, to source): each a list of
 * the paths in one strongly connected part of the relative-import graph (Tarjan's algorithm).
 */
export const importCycles = (files: ReadonlyMap<string, string>): ReadonlyArray<ReadonlyArray<string>> => {
  const edges = new Map<string, ReadonlyArray<string>>()
  for (const [path, source] of files) {
    edges.set(
      path,
      importsOf(source).filter(({ spec }) => spec.startsWith(".")).map(({ spec }) =>
        relative(".", resolve(dirname(path), spec))
      ).filter((target) => files.has(target))
    )
  }
  const index = new Map<string, number>()
  const low = new Map<string, number>()
  const stack: Array<string> = []
  const cycles: Array<ReadonlyArray<string>> = []
  const visit = (path: string) => {
    index.set(path, index.size)
    low.set(path, index.get(path)!)
    stack.push(path)
    for (const next of edges.get(path) ?? []) {
      if (!index.has(next)) {
        visit(next)
        low.set(path, Math.min(low.get(path)!, low.get(next)!))
      } else if (stack.includes(next)) low.set(path, Math.min(low.get(path)!, index.get(next)!))
    }
    if (low.get(path) !== index.get(path)) return
    const part: Array<string> = []
    for (let top = stack.pop()!;; top = stack.pop()!) {
      part.push(top)
      if (top === path) break
    }
    if (part.length > 1 || (edges.get(path) ?? []).includes(path)) cycles.push(part.sort())
  }
  for (const path of [...files.keys()].sort()) if (!index.has(path)) visit(path)
  return cycles
}
