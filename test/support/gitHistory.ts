/**
 * A git repository with a long history for the pager tests, made by one `git fast-import`: two or
 * three git processes, where a `git commit` per change took one or two per commit.
 */
import { execFileSync } from "node:child_process"

/**
 * Makes a repository at `path` whose `commits` commits say "change 1" to "change N", one second
 * apart. With `file`, commit i sets `f` to the lines 1 to i (`seq 1 i`), and the working tree and
 * index hold the last; without, the commits are empty.
 */
export const gitHistory = (path: string, commits: number, { file = false } = {}): void => {
  const data = (text: string) => `data ${Buffer.byteLength(text)}\n${text}\n`
  const stream = Array.from({ length: commits }, (_, at) => {
    const i = at + 1
    const change = file
      ? `M 100644 inline f\n${data(Array.from({ length: i }, (_, line) => `${line + 1}\n`).join(""))}`
      : ""
    return `commit refs/heads/main\ncommitter t <t@t> ${1_700_000_000 + i} +0000\n${data(`change ${i}`)}${change}`
  }).join("")
  execFileSync("git", ["init", "-q", "-b", "main", path])
  execFileSync("git", ["-C", path, "fast-import", "--quiet"], { input: stream })
  if (file) execFileSync("git", ["-C", path, "reset", "-q", "--hard"])
}
