// expect-violation: raw-runner
// A tool that runs a tmux argv directly.
import { execTmux } from "../../../src/layers/TmuxExec.ts"

export const raw = execTmux
