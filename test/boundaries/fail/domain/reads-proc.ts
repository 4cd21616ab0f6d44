// expect-violation: domain-io
// A domain module that reads /proc itself.
import { readFileSync } from "node:fs"

export const started = (pid: number) => readFileSync(`/proc/${pid}/stat`, "utf8")
