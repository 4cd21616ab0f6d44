/**
 * The run watcher's and readiness's side of domain/keyboard.ts: what a kind tells the agent, the
 * screen as the classifier needs it, and the holder of the keyboard at readiness. Reads only through
 * the probes it is given (the kernel, a tmux look), so it runs under TestClock too.
 */
import * as Effect from "effect/Effect"
import { sliceCells } from "../domain/cells.ts"
import { type BlockKind, classify, type ScreenFacts } from "../domain/keyboard.ts"
import type { KernelProbe, PaneLook, RunScreen } from "./runLooks.ts"

/** What each kind tells the agent. */
export const kindText: Record<BlockKind, string> = {
  "full-screen": "a full-screen program",
  "line-editor": "a line editor: a REPL or a prompt with line editing",
  pager: "a pager",
  prompt: "a prompt",
  stdin: "a read of its standard input from the terminal",
  secret: "a secret prompt: echo is off"
}

/** Said wherever a secret is asked. */
export const secretRemedy = "a secret (a password or passphrase) is asked: do not type one you were not given; " +
  "ask the user to type it in the pane (they can attach to watch), or interrupt it with send_keys C-c"

/**
 * At readiness, with the shell not in front: the program holding the keyboard, if the kernel
 * certainly sees one reading the terminal (the mode is read only then), or hides it from this user
 * (then only a password prompt counts: see domain/keyboard.ts). A relay is left to the
 * readiness wait: where the kernel hides the call, a tmux client (a previous run's status report,
 * leaving) looks like one. `screen`, when the caller read the rows, replaces what the state alone says.
 */
export const holderAtReadiness = Effect.fn("keyboardHolder.holderAtReadiness")(
  function*(state: PaneLook, group: number, kernel: KernelProbe, screen?: ScreenFacts) {
    const front = yield* kernel.front(state.pane_pid, group, state.pane_tty)
    if (front?.wait !== "reads" && front?.wait !== "hidden") return undefined
    const verdict = classify({
      shellInFront: false,
      program: front.program,
      programIsShell: front.programIsShell,
      wait: front.wait,
      wakes: front.wakes,
      mode: (yield* kernel.mode(state.pane_tty)) ?? { icanon: true, echo: true },
      screen: screen ??
        { alternate: state.alternate_on, changing: false, prompted: state.cursor_x > 0, drawnBelow: false }
    })
    return verdict._tag === "Blocked"
      ? { ...verdict, ...(front.executable === undefined ? {} : { executable: front.executable }) }
      : undefined
  }
)

const blank = (row: string | undefined) => (row ?? "").trim() === ""

/** The screen as the classifier needs it, from the look at the decision and the one before it. */
export const screenFacts = (seen: RunScreen, before: ReadonlyArray<string> | undefined): ScreenFacts => {
  const rows = seen.rows ?? []
  return {
    alternate: seen.alternate,
    changing: before !== undefined && before.join("\n") !== rows.join("\n"),
    prompted: !blank(sliceCells(rows[seen.cursorY] ?? "", seen.cursorX)),
    drawnBelow: rows.slice(seen.cursorY + 1).some((row) => !blank(row))
  }
}

/**
 * Who holds a pane's keyboard as readiness decides it, from one look at the pane (its screen rows
 * included) and its shell as the kernel shows it: undefined when the shell itself does, or is not
 * seen. `before` is the screen seen at the last look (a screen that changes is a program working).
 */
export const keyboardHolderOf = (
  look: PaneLook & { readonly cursor_y: number; readonly screen: string },
  shell: { readonly inForeground: boolean; readonly unseen?: unknown; readonly foregroundGroup: number } | undefined,
  kernel: KernelProbe,
  before?: ReadonlyArray<string>
) =>
  shell === undefined || shell.inForeground || shell.unseen !== undefined
    ? Effect.succeed(undefined)
    : holderAtReadiness(
      look,
      shell.foregroundGroup,
      kernel,
      screenFacts({
        recorded: false,
        dead: false,
        program: "",
        alternate: look.alternate_on,
        cursorX: look.cursor_x,
        cursorY: look.cursor_y,
        rows: look.screen.split("\n")
      }, before)
    )
