/**
 * Reading tmux's refusals (src/domain/tmuxRefusals.ts) from the exact messages tmux 3.3a prints,
 * captured from it (test/integration/tmuxRefusals.test.ts captures them again from the tmux here),
 * and those of tmux 3.2 where its source (github.com/tmux/tmux, tag 3.2) prints another.
 */
import { assert, describe, it } from "vitest"
import { type TmuxRefusal, tmuxRefusal } from "../../src/domain/tmuxRefusals.ts"

/** Messages of tmux 3.3a, as it printed them for the commands named, and what each says. */
const messages33a: ReadonlyArray<readonly [string, string, TmuxRefusal]> = [
  ["set -p -o @lmcp_claim (set)", "already set: @lmcp_claim", { _tag: "AlreadySet", option: "@lmcp_claim" }],
  ["set -pu <typing guard's mark>", "invalid option: lmcp-pane-changed:1:0:0:0:2:80x24:g3", {
    _tag: "InvalidOption",
    option: "lmcp-pane-changed:1:0:0:0:2:80x24:g3"
  }],
  ["set -pu <collection guard's mark>", "invalid option: lmcp-run-collected", {
    _tag: "InvalidOption",
    option: "lmcp-run-collected"
  }],
  ["show-options -p @nope", "invalid option: @nope", { _tag: "InvalidOption", option: "@nope" }],
  ["show-hooks -g nosuch-hook", "invalid option: nosuch-hook", { _tag: "InvalidOption", option: "nosuch-hook" }],
  ["show-options -g status-", "ambiguous option: status-", { _tag: "AmbiguousOption", option: "status-" }],
  ["capture-pane -t %99", "can't find pane: %99", { _tag: "TargetMissing", kind: "pane", target: "%99" }],
  ["list-panes -t @99", "can't find window: @99", { _tag: "TargetMissing", kind: "window", target: "@99" }],
  ["list-windows -t $99", "can't find session: $99", { _tag: "TargetMissing", kind: "session", target: "$99" }],
  ["set-option -p -t %99 @a b", "no such pane: %99", { _tag: "TargetMissing", kind: "pane", target: "%99" }],
  ["new-session -s work (exists)", "duplicate session: work", { _tag: "DuplicateSession", name: "work" }],
  ["show-environment NOPE_X", "unknown variable: NOPE_X", { _tag: "UnknownVariable", name: "NOPE_X" }],
  ["show-hooks -g a b", "command show-hooks: too many arguments (need at most 1)", {
    _tag: "TooManyArguments",
    command: "show-hooks"
  }],
  ["nosuchcmd", "unknown command: nosuchcmd", { _tag: "UnknownCommand", name: "nosuchcmd" }],
  ["list-sessions (no socket file)", "error connecting to /tmp/tw-x/tmux-0/none (No such file or directory)", {
    _tag: "ServerAbsent"
  }],
  ["list-sessions (nothing listens)", "no server running on /tmp/tw-x/tmux-0/stale", { _tag: "ServerAbsent" }],
  ["wait-for (server killed)", "server exited unexpectedly", { _tag: "ServerAbsent" }]
]

describe("tmux's refusals", () => {
  it("reads each message tmux 3.3a prints as what it says", () => {
    for (const [command, message, refusal] of messages33a) {
      assert.deepStrictEqual(tmuxRefusal(message), refusal, command)
      // As the tmux runner hands it over (trimmed), or with its newline.
      assert.deepStrictEqual(tmuxRefusal(`${message}\n`), refusal, command)
    }
  })

  it("reads what tmux 3.2 prints in the same words (its source), and not its usage line as an argument count", () => {
    // cmd-find.c: with no target given and none implied.
    assert.deepStrictEqual(tmuxRefusal("no current target"), { _tag: "TargetMissing", kind: "current", target: "" })
    // options.c: an option set in a scope that has none of that name.
    assert.deepStrictEqual(tmuxRefusal("unknown option: x"), { _tag: "UnknownOption", option: "x" })
    // cmd.c (3.2): any argument it cannot parse, not only too many.
    assert.deepStrictEqual(tmuxRefusal("usage: show-hooks [-gpw] [-t target-pane]"), { _tag: "Other" })
  })

  it("takes the first refusal of the text, and nothing that only contains a message's words", () => {
    assert.deepStrictEqual(tmuxRefusal("invalid option: @a\nalready set: @b"), { _tag: "InvalidOption", option: "@a" })
    for (
      const text of [
        "",
        "x already set: @lmcp_claim",
        "a line saying no server running on x",
        "lost tty",
        "error connecting to /s (Permission denied)"
      ]
    ) {
      assert.deepStrictEqual(tmuxRefusal(text), { _tag: "Other" }, text)
    }
  })
})
