// expect-violation: domain-io
// A domain module that asks the system by starting a process.
import { execFileSync } from "child_process"

export const ticks = () => Number(execFileSync("getconf", ["CLK_TCK"], { encoding: "utf8" }))
