// expect-violation: process-import
// A tool that starts a process of its own.
import { execFile } from "node:child_process"

export const run = () => execFile("tmux", ["kill-server"])
