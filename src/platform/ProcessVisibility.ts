/**
 * What this server can see of processes on this system, for `tmux://capabilities`: where the
 * kernel hides something run_shell_command reads, what it then does instead. Read from /proc when
 * asked; never guessed from the platform's name.
 */
import { existsSync, readdirSync, readFileSync } from "node:fs"

/** One thing the server cannot see here, and what it does without it. @category models */
export interface Unseen {
  readonly what: string
  readonly instead: string
}

/** The process view of this system. @category models */
export interface ProcessVisibility {
  readonly proc: boolean
  readonly wchan: boolean
  readonly child_lists: boolean
  readonly cannot_see: ReadonlyArray<Unseen>
  /** What is checked on every run_shell_command, since it depends on the pane, not on the system. */
  readonly checked_per_call: ReadonlyArray<string>
}

const readOr = (path: string): string | undefined => {
  try {
    return readFileSync(path, "utf8").trim()
  } catch {
    return undefined
  }
}

// Kernels that hide wchan answer "0" for every thread; this process has threads asleep in a wait.
const wchanShown = (): boolean => {
  try {
    return readdirSync("/proc/self/task").some((task) => {
      const wchan = readOr(`/proc/self/task/${task}/wchan`)
      return wchan !== undefined && wchan !== "" && wchan !== "0"
    })
  } catch {
    return false
  }
}

const perCall = [
  "/proc/<pane_pid> counts as the pane's process only when its controlling terminal is the pane's " +
  "(#{pane_tty}); otherwise (tmux in another pid namespace, as in a container sharing its socket) " +
  "run_shell_command refuses, saying the pane's processes cannot be seen from here, and types nothing",
  "a process named like a shell counts as one only when the program it runs (/proc/<pid>/exe) is that " +
  "shell; where exe cannot be read, its name is all there is"
]

/** Looks at this system's /proc. @category constructors */
export const processVisibility = (): ProcessVisibility => {
  const proc = existsSync("/proc/self/stat")
  const wchan = proc && wchanShown()
  const childLists = proc && existsSync(`/proc/self/task/${process.pid}/children`)
  const cannotSee: Array<Unseen> = []
  if (!proc) {
    cannotSee.push({
      what: "/proc (not Linux)",
      instead: "run_shell_command takes tmux's pane_current_command for the pane's process and its state; " +
        "it cannot tell a shell at its prompt from one running its startup files, nor report blocked_by " +
        "for a program waiting for terminal input"
    })
  } else {
    if (!wchan) {
      cannotSee.push({
        what: "wchan (hidden by the kernel: every process reads 0)",
        instead: "a shell asleep in the terminal's foreground counts as idle at its prompt; a program of the " +
          "foreground is judged by /proc/<pid>/syscall where readable, else by the descriptors it holds, and " +
          "then only while the screen holds still"
      })
    }
    if (!childLists) {
      cannotSee.push({
        what: "/proc/<pid>/task/*/children (kernel without CONFIG_PROC_CHILDREN)",
        instead: "the foreground job's processes are not found: blocked_by is not reported, a run waits to its " +
          "timeout, and its output_is_screen says alternate-screen when a full-screen program is up"
      })
    }
  }
  return { proc, wchan, child_lists: childLists, cannot_see: cannotSee, checked_per_call: proc ? perCall : [] }
}
