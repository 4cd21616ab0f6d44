/**
 * What an answer typed into a run's program may be (run_shell_command's `answer`, a task's form):
 * one line of text, short enough to be typed in one tmux command list.
 */

/** The longest answer: typed in one tmux command list (a tmux message holds 16 KiB). */
export const maxAnswer = 2000

/** What an answer's text may not hold: C0 and C1 controls, DEL (a newline, C-d, a bracketed paste's end). */
// oxlint-disable-next-line no-control-regex -- the control characters are what it finds
export const controlCharacter = /[\u0000-\u001f\u007f-\u009f]/u
