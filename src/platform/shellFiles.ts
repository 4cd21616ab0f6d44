/**
 * Whether the program a pane's process runs is a shell of this system: the file `/proc/<pid>/exe`
 * names is, by device and inode, one that /etc/shells lists or that a shell's name finds on this
 * process's PATH (or /bin, /usr/bin). A name is what a program calls itself, and its file's name is
 * the copier's choice: a copy of python3 named `bash` is neither.
 */
import { delimiter, join } from "node:path"
import type { ProcFiles } from "./Proc.ts"

/** The names a shell's file may have (busybox serves `sh` and `ash` under its own name). */
const shellNames = ["sh", "bash", "zsh", "dash", "fish", "ksh", "ksh93", "mksh", "ash", "yash", "busybox"]

const candidates = (files: Pick<ProcFiles, "read">): ReadonlyArray<string> => {
  const listed = (files.read("/etc/shells") ?? "").split("\n").map((line) => line.trim())
    .filter((line) => line.startsWith("/"))
  const folders = [...(process.env.PATH ?? "").split(delimiter), "/bin", "/usr/bin", "/usr/local/bin"]
    .filter((folder) => folder.startsWith("/"))
  return [...listed, ...folders.flatMap((folder) => shellNames.map((name) => join(folder, name)))]
}

/** What each program file was found to be, by its identity: a pane's shell is asked about at every poll. */
const known = new Map<string, boolean>()

/**
 * `true` when the file `exe` (a `/proc/<pid>/exe` link) is a shell file of this system, `false` when
 * it is not, `undefined` when its identity cannot be read (then the name decides, as before).
 */
export const isSystemShell = (files: Pick<ProcFiles, "read" | "identity">, exe: string): boolean | undefined => {
  const identity = files.identity?.(exe)
  if (identity === undefined) return undefined
  const found = known.get(identity)
  if (found !== undefined) return found
  const shell = candidates(files).some((path) => files.identity?.(path) === identity)
  // Bounded: past it, files are looked up again at every ask.
  if (known.size < 256) known.set(identity, shell)
  return shell
}
