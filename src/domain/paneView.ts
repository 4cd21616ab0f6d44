/**
 * Whether what /proc shows under a pane's pid is the pane's process, and whether a process named
 * like a shell runs a shell. Security: the pid tmux reports (`#{pane_pid}`) is a pid in tmux's pid
 * namespace; where this server runs in another one, /proc/<pid> here is some other process (a
 * kernel thread, a stranger's program), and judging readiness by it would type into a pane whose
 * state nobody has seen. And a command name is what a program calls itself: a REPL copied to a
 * file named `bash` is not a shell.
 */
import { shellKind } from "./shellProtocol.ts"

/** What the check needs of /proc/<pid>/stat and of the pane's terminal. @category models */
export interface PaneView {
  readonly pid: number
  /** The command name, or `undefined` when /proc has no such process. */
  readonly comm: string | undefined
  /** Field 7 of /proc/<pid>/stat, the controlling terminal's device number (0 for none). */
  readonly ttyNr: number
  /** The pane's terminal, as tmux names it. */
  readonly tty: string
  /** The device number (rdev) of that terminal here, or `undefined` when it cannot be seen. */
  readonly rdev: number | undefined
}

/**
 * Why /proc/<pid> cannot be taken for the pane's process, or `undefined` when it can: its
 * controlling terminal is the pane's (tty_nr encodes as st_rdev does for every terminal). A
 * process still without a terminal is accepted only while it is tmux's own child, before it runs
 * the pane's program.
 */
export const unseenReason = (view: PaneView): string | undefined => {
  if (view.comm === undefined) return `no process ${view.pid} is visible here`
  if (view.rdev === undefined) return `the pane's terminal ${view.tty} is not visible here`
  if (view.ttyNr === view.rdev) return undefined
  if (view.ttyNr === 0 && view.comm.startsWith("tmux")) return undefined
  return `process ${view.pid} here (${view.comm}) does not have the pane's terminal ${view.tty} as its terminal`
}

/** The file name of a `/proc/<pid>/exe` target: its last path part, without the kernel's " (deleted)". */
export const programName = (target: string): string =>
  target.replace(/ \(deleted\)$/u, "").slice(target.lastIndexOf("/") + 1)

/**
 * Whether the program a process runs is a shell of the family its command name says: `bash` runs
 * /usr/bin/bash, `sh` may run dash, bash or busybox, versioned names (`zsh5`, `ksh93`,
 * `bash-5.2`) count as their shell.
 */
/**
 * What replaced the shell an in-shell run was typed into (`exec`), or `undefined`: the pane's
 * process, under the same pid, runs another program now, or the same program exec'd again (its
 * image, see PaneProcess's ShellProcess.image, is another).
 */
export const replacedBy = (
  typed: { readonly shell: string; readonly image?: string | undefined },
  now: { readonly comm: string; readonly image?: string | undefined }
): string | undefined => {
  if (now.comm === "") return undefined
  const reimaged = typeof typed.image === "string" && now.image !== undefined && now.image !== typed.image
  return now.comm !== typed.shell || reimaged ? now.comm : undefined
}

export const runsShell = (comm: string, program: string): boolean => {
  const family = shellKind(comm)
  if (family === undefined) return false
  const base = program.replace(/[-.\d]+$/u, "")
  return shellKind(program) === family || shellKind(base) === family
}
