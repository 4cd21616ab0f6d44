// expect-violation: raw-runner
// A tool that runs a tmux argv directly.
import { execTmux } from "../../../src/platform/TmuxExec.ts"

export const raw = execTmux
