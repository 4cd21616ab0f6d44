/**
 * run_shell_command's readiness and watching logic under TestClock, against a scripted pane: the
 * kernel's view of the shell and of the terminal's readers, and tmux's view of the screen, each a
 * function of virtual time. No tmux, no real time.
 */
import { assert, describe, it } from "@effect/vitest"
import * as Effect from "effect/Effect"
import * as Fiber from "effect/Fiber"
import * as Schema from "effect/Schema"
import { TestClock } from "effect/testing"
import type { PaneId } from "../../src/domain/ids.ts"
import type { TerminalMode } from "../../src/domain/keyboard.ts"
import {
  awaitReady,
  type KernelProbe,
  type PaneLook,
  type RunScreen,
  timings,
  watchRun
} from "../../src/programs/runWatch.ts"
import type { ShellProcess } from "../../src/services/PaneProcess.ts"

const now = Effect.clockWith((clock) => clock.currentTimeMillis)

const reading: ShellProcess = {
  comm: "bash",
  inForeground: true,
  reading: true,
  foreground: "bash",
  foregroundGroup: 10,
  ageMs: 0
}
const running: ShellProcess = { ...reading, reading: false }
const job = (name: string, ageMs = 0): ShellProcess => ({
  ...reading,
  reading: false,
  inForeground: false,
  foreground: name,
  foregroundGroup: 20,
  ageMs
})

const kernel = (
  shell: (t: number) => ShellProcess,
  reader: (t: number) => string | undefined = () => undefined,
  mode: TerminalMode = { icanon: false, echo: false }
): KernelProbe => ({
  shell: () => Effect.map(now, shell),
  front: () =>
    Effect.map(now, (t) => {
      const program = reader(t)
      return {
        pid: 30,
        program: program ?? "make",
        programIsShell: false,
        wakes: false,
        wait: program ? "reads" : "elsewhere"
      }
    }),
  mode: () => Effect.succeed(mode)
})

const pane = (extra: Partial<PaneLook> = {}): PaneLook => ({
  pane_pid: 10,
  cursor_x: 2,
  pane_dead: false,
  pane_in_mode: false,
  alternate_on: false,
  pane_current_command: "bash",
  pane_tty: "/dev/pts/1",
  ...extra
})

/** A tmux look that counts how often it was asked and when. */
const looks = (state: PaneLook = pane()) => {
  const at: Array<number> = []
  return { at, look: Effect.map(now, (t) => (at.push(t), state)) }
}

const screen = (seen: (t: number) => Partial<RunScreen>) => (rows: boolean) =>
  Effect.map(now, (t): RunScreen => ({
    recorded: false,
    dead: false,
    alternate: false,
    program: "bash",
    cursorX: 0,
    cursorY: 0,
    ...(rows ? { rows: [""] } : {}),
    ...seen(t)
  }))

describe("awaitReady", () => {
  it.effect("types nothing while the shell runs its startup files, and reads the prompt row again once it's idle", () =>
    Effect.gen(function*() {
      const tmux = looks()
      const fiber = yield* Effect.forkChild(
        awaitReady("%1" as PaneId, tmux.look, kernel((t) => t < 3_000 ? running : reading), 10_000)
      )
      yield* TestClock.adjust(2_990)
      assert.isUndefined(fiber.pollUnsafe())
      yield* TestClock.adjust(30)
      const ready = yield* Fiber.join(fiber)
      assert.strictEqual(ready.shell, "bash")
      assert.isAtLeast(tmux.at.at(-1)!, 3_000, "the pane was read again after the shell reached its prompt")
    }))

  it.effect("waits for a pane created a moment ago whose process is still tmux's own child", () =>
    Effect.gen(function*() {
      const fiber = yield* Effect.forkChild(
        awaitReady(
          "%1" as PaneId,
          looks().look,
          kernel((t) => t < 200 ? { ...running, comm: "tmux: server" } : reading),
          10_000
        )
      )
      yield* TestClock.adjust(300)
      assert.strictEqual((yield* Fiber.join(fiber)).shell, "bash")
    }))

  it.effect("refuses at the deadline a shell still starting, saying nothing was typed", () =>
    Effect.gen(function*() {
      const fiber = yield* Effect.forkChild(
        Effect.flip(awaitReady("%1" as PaneId, looks().look, kernel(() => job("sleep")), 1_000))
      )
      yield* TestClock.adjust(1_100)
      const error = yield* Fiber.join(fiber)
      assert.strictEqual(error._tag === "PaneNotReady" ? error.reason : error._tag, "timed-out")
      assert.include(error.message, "sleep is running")
      assert.include(error.message, "nothing was typed")
    }))

  it.effect(
    "refuses at once what waiting cannot fix: a mode, the alternate " +
      "screen, an unsupported program, a program reading the terminal",
    () =>
      Effect.gen(function*() {
        for (
          const [state, probe, words, reason] of [
            [pane({ pane_in_mode: true }), kernel(() => reading), "copy mode", "in-mode"],
            [
              pane({ alternate_on: true, pane_current_command: "vim" }),
              kernel(() => reading),
              "alternate screen",
              "full-screen"
            ],
            [pane(), kernel(() => ({ ...reading, comm: "python3" })), "cannot drive", "not-a-shell"],
            [pane(), kernel(() => job("ssh"), () => "ssh"), "holds the keyboard", "keyboard-held"],
            // Issue 23, item 4: a program named bash that is not a shell, and a /proc that is not the pane's.
            [
              pane(),
              kernel(() => ({ ...reading, program: "python3.11" })),
              "named bash but runs python3.11",
              "not-a-shell"
            ],
            [
              pane(),
              kernel(() => ({ ...reading, unseen: "process 10 here (kthreadd) does not have the pane's terminal" })),
              "cannot be seen from here",
              "processes-unseen"
            ]
          ] as const
        ) {
          const error = yield* Effect.flip(awaitReady("%1" as PaneId, Effect.succeed(state), probe, 60_000))
          assert.include(error.message, words)
          assert.strictEqual(error._tag === "PaneNotReady" ? error.reason : error._tag, reason)
        }
      })
  )

  it.effect("asks the kernel with the pane's terminal, and takes a shell whose program is that shell", () =>
    Effect.gen(function*() {
      const asked: Array<string | undefined> = []
      const probe: KernelProbe = {
        ...kernel(() => reading),
        shell: (_pid, tty) => Effect.sync(() => (asked.push(tty), { ...reading, program: "bash" }))
      }
      const ready = yield* awaitReady("%1" as PaneId, Effect.succeed(pane()), probe, 60_000)
      assert.strictEqual(ready.shell, "bash")
      assert.deepStrictEqual(asked, ["/dev/pts/1"])
    }))

  it.effect("gives an older shell's foreground job a short grace, then refuses", () =>
    Effect.gen(function*() {
      const fiber = yield* Effect.forkChild(
        Effect.flip(awaitReady("%1" as PaneId, looks().look, kernel(() => job("make", 3_600_000)), 60_000))
      )
      yield* TestClock.adjust(timings.foregroundGrace + 50)
      const error = yield* Fiber.join(fiber)
      assert.include(error.message, "make is running in the foreground")
      assert.strictEqual(error._tag === "PaneNotReady" ? error.reason : error._tag, "busy")
    }))

  it.effect.prop(
    "for any startup time and timeout: ready exactly when the shell " +
      "reached its prompt before the deadline, and never before",
    [
      Schema.Int.check(Schema.isBetween({ minimum: 0, maximum: 5_000 })),
      Schema.Int.check(Schema.isBetween({ minimum: 1, maximum: 5_000 }))
    ],
    ([readyAt, deadline]) =>
      Effect.gen(function*() {
        const fiber = yield* Effect.forkChild(
          Effect.result(
            awaitReady("%1" as PaneId, looks().look, kernel((t) => t < readyAt ? running : reading), deadline)
          )
        )
        yield* TestClock.adjust(6_000)
        const result = yield* Fiber.join(fiber)
        const finished = yield* now
        if (result._tag === "Success") {
          assert.isAtMost(readyAt, deadline + timings.readyPoll, "ready only once the shell was")
        } else {assert.isAbove(
            readyAt,
            deadline - timings.readyPoll,
            `refused though ready at ${readyAt} before ${deadline} (now ${finished})`
          )}
      })
  )
})

describe("watchRun", () => {
  const watch = (probe: KernelProbe, seen: (t: number) => Partial<RunScreen> = () => ({})) =>
    watchRun(10, "/dev/pts/1", probe, screen(seen))

  it.effect("reports a program blocked reading the terminal after about half a second, naming it", () =>
    Effect.gen(function*() {
      const fiber = yield* Effect.forkChild(watch(kernel(() => job("less"), (t) => t > 200 ? "less" : undefined)))
      yield* TestClock.adjust(600)
      assert.isUndefined(fiber.pollUnsafe())
      yield* TestClock.adjust(300)
      assert.deepStrictEqual(yield* Fiber.join(fiber), { _tag: "Blocked", by: "less", kind: "pager" })
    }))

  it.effect("reports the shell back at its prompt without a record as Returned, and with one as Recorded", () =>
    Effect.gen(function*() {
      const returned = yield* Effect.forkChild(watch(kernel((t) => t < 1_000 ? job("sh") : reading)))
      yield* TestClock.adjust(1_500)
      assert.deepStrictEqual(yield* Fiber.join(returned), { _tag: "Returned" })
      const recorded = yield* Effect.forkChild(
        watch(kernel((t) => t < 1_000 ? job("sh") : reading), (t) => ({ recorded: t >= 900 }))
      )
      yield* TestClock.adjust(1_500)
      assert.deepStrictEqual(yield* Fiber.join(recorded), { _tag: "Recorded" })
    }))

  it.effect("counts the shell idle only from a look that saw the paste: a shell slow to read it did not return", () =>
    Effect.gen(function*() {
      // The paste reached tmux before the first look (typed), but the shell, starved of CPU, reads it only at 450
      // and runs until 1,000, when its report comes: idle at its prompt from the watch's start was no return.
      const slow = yield* Effect.forkChild(
        watch(kernel((t) => t < 450 ? reading : t < 1_000 ? job("sh") : reading), (t) => ({ recorded: t >= 1_000 }))
      )
      yield* TestClock.adjust(1_600)
      assert.deepStrictEqual(yield* Fiber.join(slow), { _tag: "Recorded" })
      // A shell that never reads it after the paste came (an unclosed quote's continuation prompt) did return,
      // once it was seen idle for idleAfter after the look that saw the paste.
      const idle = yield* Effect.forkChild(watch(kernel(() => reading)))
      yield* TestClock.adjust(timings.idleAfter + 2 * timings.watchPoll)
      assert.isUndefined(idle.pollUnsafe(), "told before idle for idleAfter past the look that saw the paste")
      yield* TestClock.adjust(timings.idleAfter)
      assert.deepStrictEqual(yield* Fiber.join(idle), { _tag: "Returned" })
    }))

  it.effect("reports an in-shell run's shell replaced by another program, or by another exec of itself", () =>
    Effect.gen(function*() {
      const typed = { shell: "bash", image: "1 2 2 3" }
      const python = yield* Effect.forkChild(
        watchRun(
          10,
          "/dev/pts/1",
          kernel((t) => t < 250 ? running : { ...reading, comm: "python3" }),
          screen(() => ({})),
          typed
        )
      )
      yield* TestClock.adjust(400)
      assert.deepStrictEqual(yield* Fiber.join(python), { _tag: "Replaced", by: "python3" })
      // The same program exec'd again (at 650, this watch starting at 400): told by its image, once it reads
      // its terminal or after a moment.
      const again = (t: number): ShellProcess =>
        t < 650 ? { ...running, image: "1 2 2 3" } : { ...running, image: "5 6 6 7" }
      const bash = yield* Effect.forkChild(watchRun(10, "/dev/pts/1", kernel(again), screen(() => ({})), typed))
      yield* TestClock.adjust(300 + timings.blockedAfter - 100)
      assert.isUndefined(bash.pollUnsafe())
      yield* TestClock.adjust(200)
      assert.deepStrictEqual(yield* Fiber.join(bash), { _tag: "Replaced", by: "bash" })
      // A subshell run (no shell to compare with), and the same image: never replaced.
      for (
        const watcher of [
          watch(kernel(again)),
          watchRun(10, "/dev/pts/1", kernel(() => ({ ...running, image: "1 2 2 3" })), screen(() => ({})), typed)
        ]
      ) {
        const fiber = yield* Effect.forkChild(watcher)
        yield* TestClock.adjust(5_000)
        assert.isUndefined(fiber.pollUnsafe())
        yield* Fiber.interrupt(fiber)
      }
    }))

  it.effect("names the kind: a full-screen program on the alternate screen, a secret asked at once", () =>
    Effect.gen(function*() {
      const vim = yield* Effect.forkChild(watch(kernel(() => job("sh"), () => "vim"), () => ({ alternate: true })))
      yield* TestClock.adjust(timings.blockedAfter + 200)
      assert.deepStrictEqual(yield* Fiber.join(vim), { _tag: "Blocked", by: "vim", kind: "full-screen" })
      const secret = yield* Effect.forkChild(
        watch(kernel(() => job("bash"), () => "bash", { icanon: true, echo: false }))
      )
      yield* TestClock.adjust(timings.watchPoll + 10)
      assert.deepStrictEqual(yield* Fiber.join(secret), { _tag: "Blocked", by: "bash", kind: "secret" })
    }))

  it.effect("calls a raw reader whose prompt tmux drew only after the first look a line editor, not full-screen", () =>
    Effect.gen(function*() {
      // The CI failure of stop 56: node's readline prompt was written before its wait, but tmux, loaded, showed it
      // only after the watcher's first look; one change between two looks is a screen arriving, not one redrawn.
      const late = (t: number): Partial<RunScreen> =>
        t < 150 ? { rows: [""] } : { rows: ["package name: "], cursorX: 14 }
      const node = yield* Effect.forkChild(watch(kernel(() => job("node"), () => "node"), late))
      yield* TestClock.adjust(3 * timings.blockedAfter)
      assert.deepStrictEqual(yield* Fiber.join(node), { _tag: "Blocked", by: "node", kind: "line-editor" })
      // A raw reader that redraws at every look is a full-screen program, however few rows it draws.
      const clock = yield* Effect.forkChild(
        watch(kernel(() => job("clock"), () => "clock"), (t) => ({ rows: [`${Math.floor(t / 100)}`], cursorX: 3 }))
      )
      yield* TestClock.adjust(3 * timings.blockedAfter)
      assert.deepStrictEqual(yield* Fiber.join(clock), { _tag: "Blocked", by: "clock", kind: "full-screen" })
    }))

  it.effect("never reports the alternate screen alone as blocked: nobody reads the keyboard", () =>
    Effect.gen(function*() {
      const fiber = yield* Effect.forkChild(watch(kernel(() => job("watch")), () => ({ alternate: true })))
      yield* TestClock.adjust(10_000)
      assert.isUndefined(fiber.pollUnsafe())
      yield* Fiber.interrupt(fiber)
    }))

  it.effect("keeps watching a run that simply runs", () =>
    Effect.gen(function*() {
      const fiber = yield* Effect.forkChild(watch(kernel(() => job("make"))))
      yield* TestClock.adjust(60_000)
      assert.isUndefined(fiber.pollUnsafe())
      yield* Fiber.interrupt(fiber)
    }))
})
