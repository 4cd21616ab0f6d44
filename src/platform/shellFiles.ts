/**
 * Whether the program a pane's process runs is a shell of this system: the file `/proc/<pid>/exe`
 * names is, by device, inode, size and change time, one that /etc/shells lists, this user's login
 * shell, the shell tmux started the pane with (its `SHELL`, tmux's `default-shell`), or one a shell's
 * name finds on this process's or the pane process's PATH (or /bin, /usr/bin). A name is what a
 * program calls itself, and its file's name is the copier's choice: a copy of python3 named `bash` is
 * none of these.
 */
import { userInfo } from "node:os"
import { delimiter, join } from "node:path"
import type { ProcFiles } from "./Proc.ts"

/** The names a shell's file may have (busybox serves `sh` and `ash` under its own name). */
const shellNames = ["sh", "bash", "zsh", "dash", "fish", "ksh", "ksh93", "mksh", "ash", "yash", "busybox"]

const loginShell = (() => {
  try {
    return userInfo().shell ?? undefined
  } catch {
    return undefined
  }
})()

/** A variable of a NUL-separated environment (`/proc/<pid>/environ`). */
const variable = (environ: string, name: string): string | undefined =>
  environ.split("\0").find((entry) => entry.startsWith(`${name}=`))?.slice(name.length + 1)

const candidates = (files: Pick<ProcFiles, "read">, pid: number): ReadonlyArray<string> => {
  const environ = files.read(`/proc/${pid}/environ`) ?? ""
  const listed = (files.read("/etc/shells") ?? "").split("\n").map((line) => line.trim())
  const named = [...listed, process.env.SHELL, loginShell, variable(environ, "SHELL")]
    .filter((path): path is string => path?.startsWith("/") === true)
  const folders = [
    ...(process.env.PATH ?? "").split(delimiter),
    ...(variable(environ, "PATH") ?? "").split(delimiter),
    "/bin",
    "/usr/bin",
    "/usr/local/bin"
  ].filter((folder) => folder.startsWith("/"))
  return [...new Set([...named, ...folders.flatMap((folder) => shellNames.map((name) => join(folder, name)))])]
}

/** Program files found to be shells, by identity: a pane's shell is asked about at every poll. */
const shells = new Set<string>()

/**
 * `true` when the file pane process `pid` runs is a shell file of this system, `false` when it is
 * not (a refusal follows, so it is not kept), `undefined` when its identity cannot be read (then the
 * name decides, as before).
 */
export const isSystemShell = (files: Pick<ProcFiles, "read" | "identity">, pid: number): boolean | undefined => {
  const identity = files.identity?.(`/proc/${pid}/exe`)
  if (identity === undefined) return undefined
  if (shells.has(identity)) return true
  const shell = candidates(files, pid).some((path) => files.identity?.(path) === identity)
  // Bounded: past it, files are looked up again at every ask.
  if (shell && shells.size < 256) shells.add(identity)
  return shell
}
