/**
 * The words that run this installation's entry, for commands handed to the agent
 * (domain/watchCommand.ts): set by the `libtmux-mcp` command as it starts serving; a host that
 * embeds the server never sets them, and no such command is handed out.
 */
import { realpathSync } from "node:fs"
import { packaged } from "./packaged.ts"

let words: ReadonlyArray<string> | undefined

/** Records the entry of this process: the single executable, or Node and the bin it runs. */
export const recordEntry = (argv: ReadonlyArray<string>): void => {
  try {
    words = packaged ? [process.execPath] : [process.execPath, realpathSync(argv[1] ?? "")]
  } catch {
    words = undefined
  }
}

/** The entry's words, when this process is the `libtmux-mcp` command. */
export const entryWords = (): ReadonlyArray<string> | undefined => words
