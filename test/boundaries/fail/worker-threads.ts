// expect-violation: process-import
// A tool that starts a thread of its own.
import { Worker } from "node:worker_threads"

export const start = (path: string) => new Worker(path)
