/**
 * Issue 23, item 4: /proc/<pane_pid> counts as the pane's process only when its controlling
 * terminal is the pane's, and a process named like a shell counts as one only when the program it
 * runs is that shell. Against a made-up /proc.
 */
import { assert, describe, it } from "vitest"
import { replacedBy, runsShell } from "../../src/domain/paneView.ts"
import { type ProcFiles, shellFrom } from "../../src/layers/PaneProcessLive.ts"

const pts3 = 34_819 // makedev(136, 3)
const statLine = (pid: number, comm: string, ttyNr: number) =>
  `${pid} (${comm}) S 1 ${pid} ${pid} ${ttyNr} ${pid} 4194560 0 0 0 0 0 0 0 0 20 0 1 0 100 0 0`

/** A /proc with the given processes (pid -> stat line, exe target) and /dev/pts/3. */
const proc = (processes: Record<number, { stat: string; exe?: string }>, withProc = true): ProcFiles => ({
  read: (path) => {
    if (path === "/proc/self/stat") return withProc ? statLine(1, "node", 0) : undefined
    if (path === "/proc/uptime") return "1000.00 900.00"
    const stat = /^\/proc\/(\d+)\/stat$/u.exec(path)
    if (stat !== null) return processes[Number(stat[1])]?.stat
    if (path.endsWith("/wchan")) return "n_tty_read"
    return undefined
  },
  link: (path) => processes[Number(/^\/proc\/(\d+)\/exe$/u.exec(path)?.[1])]?.exe,
  device: (path) => path === "/dev/pts/3" ? pts3 : undefined
})

describe("the pane's process in /proc", () => {
  it("is taken when its controlling terminal is the pane's, with the program it runs", () => {
    const shell = shellFrom(proc({ 40: { stat: statLine(40, "bash", pts3), exe: "/usr/bin/bash" } }))(40, "/dev/pts/3")
    assert.strictEqual(shell?.unseen, undefined)
    assert.strictEqual(shell?.comm, "bash")
    assert.strictEqual(shell?.program, "bash")
    assert.isTrue(shell?.reading)
  })

  it("is unseen when /proc/<pid> is another process (another pid namespace), or there is none", () => {
    const files = proc({ 40: { stat: statLine(40, "kthreadd", 0) }, 41: { stat: statLine(41, "bash", 34_820) } })
    assert.include(shellFrom(files)(40, "/dev/pts/3")?.unseen, "kthreadd")
    assert.include(shellFrom(files)(41, "/dev/pts/3")?.unseen, "does not have the pane's terminal")
    assert.include(shellFrom(files)(42, "/dev/pts/3")?.unseen, "no process 42")
    assert.include(shellFrom(files)(41, "/dev/pts/9")?.unseen, "not visible here")
  })

  it("accepts tmux's own child before it has a terminal, and says nothing where there is no /proc", () => {
    const files = proc({ 40: { stat: statLine(40, "tmux: server", 0) } })
    assert.strictEqual(shellFrom(files)(40, "/dev/pts/3")?.unseen, undefined)
    assert.isUndefined(shellFrom(proc({}, false))(40, "/dev/pts/3"))
  })

  it("is not checked without the pane's terminal (a run already under way)", () => {
    const files = proc({ 40: { stat: statLine(40, "bash", 0) } })
    assert.strictEqual(shellFrom(files)(40)?.unseen, undefined)
    assert.strictEqual(shellFrom(files)(40)?.program, undefined)
  })
})

describe("an exec in the pane's process", () => {
  it("is told by stat fields 48-51, which each exec places anew, and absent where the kernel hides them", () => {
    const tail = (image: string) => `${" 0".repeat(23)} ${image} 0`
    const seen = shellFrom(proc({ 40: { stat: statLine(40, "bash", 0) + tail("100 110 110 140") } }))(40)
    assert.strictEqual(seen?.image, "100 110 110 140")
    assert.isUndefined(shellFrom(proc({ 40: { stat: statLine(40, "bash", 0) + tail("0 0 0 0") } }))(40)?.image)
    assert.isUndefined(shellFrom(proc({ 40: { stat: statLine(40, "bash", 0) } }))(40)?.image)
  })

  it("replaced the shell when another program or another image runs under its pid", () => {
    const typed = { shell: "bash", image: "1 2 2 3" }
    assert.strictEqual(replacedBy(typed, { comm: "python3", image: "7 8 8 9" }), "python3")
    assert.strictEqual(replacedBy(typed, { comm: "bash", image: "7 8 8 9" }), "bash")
    assert.isUndefined(replacedBy(typed, { comm: "bash", image: "1 2 2 3" }))
    // Unknown on either side: only the program tells.
    assert.isUndefined(replacedBy({ shell: "bash" }, { comm: "bash", image: "7 8 8 9" }))
    assert.isUndefined(replacedBy(typed, { comm: "bash" }))
    assert.strictEqual(replacedBy({ shell: "zsh" }, { comm: "sleep" }), "sleep")
  })
})

describe("runsShell", () => {
  it("tells a shell by the program it runs, not by its name", () => {
    for (
      const [comm, program] of [["bash", "bash"], ["sh", "dash"], ["sh", "bash"], ["zsh", "zsh5"], ["ksh", "ksh93"]]
    ) {
      assert.isTrue(runsShell(comm!, program!), `${comm} ${program}`)
    }
    for (const [comm, program] of [["bash", "python3.11"], ["bash", "node"], ["fish", "bash"], ["python3", "bash"]]) {
      assert.isFalse(runsShell(comm!, program!), `${comm} ${program}`)
    }
  })
})
