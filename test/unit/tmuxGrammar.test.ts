/**
 * The authorities' grammar (src/services/TmuxGrammar.ts) and the one constructor that enforces it
 * (`makeAuthorities`): each case the issue named is refused at run time as well as by the types,
 * flags are read as tmux reads them, and the host-reach count moves when a grammar is widened.
 */
import * as Cause from "effect/Cause"
import * as Context from "effect/Context"
import * as Effect from "effect/Effect"
import * as Exit from "effect/Exit"
import { assert, describe, it } from "vitest"
import { typingGuard } from "../../src/domain/typingGuard.ts"
import { manifest, toolNames } from "../../src/manifest/index.ts"
import { callRefusal, makeAuthorities, PaneCommand, TmuxChange, TmuxObserve } from "../../src/services/Tmux.ts"
import { type AuthorityName, grammar, isLiteralFormat, reachesHost, refusal } from "../../src/services/TmuxGrammar.ts"
import { reachesHostCommands } from "../../src/tools/define.ts"
import { hostCommandTools } from "../../src/wire/Disclosure.ts"

const admitted = (authority: AuthorityName, ...argv: ReadonlyArray<string>) =>
  assert.isUndefined(refusal(authority, argv), argv.join(" "))
const refused = (authority: AuthorityName, reason: RegExp, ...argv: ReadonlyArray<string>) =>
  assert.match(refusal(authority, argv) ?? "admitted", reason, argv.join(" "))

describe("the grammar", () => {
  it("refuses what would take an authority past its row", () => {
    refused("TmuxObserve", /flag -I/u, "display-message", "-I", "-t", "%0")
    refused("TmuxChange", /copy-pipe/u, "send-keys", "-X", "-t", "%0", "copy-pipe", "sh")
    refused("TmuxChange", /copy-pipe-and-cancel/u, "send-keys", "-X", "-t", "%0", "copy-pipe-and-cancel")
    refused("TmuxChange", /status-right/u, "set-option", "-g", "status-right", "#(touch /tmp/x)")
    refused("TmuxChange", /-X is required/u, "send-keys", "-t", "%0", "ls")
    refused("PaneCommand", /not admitted/u, "respawn-pane", "-k", "-t", "%0")
    refused("PaneCommand", /status-left/u, "set-option", "-p", "-t", "%0", "status-left", "x")
    refused("PaneInput", /flag -X/u, "send-keys", "-X", "-t", "%0", "cancel")
    refused("PaneInput", /not one of -/u, "load-buffer", "-b", "libtmux-mcp-paste-1-ab", "/etc/passwd")
    refused("PaneInput", /buffer/u, "paste-buffer", "-b", "someone-elses", "-t", "%0")
    refused("TmuxSpawn", /too many arguments/u, "new-window", "-t", "$0:", "sh", "-c", "id")
    refused("TmuxObserve", /literal format/u, "list-panes", "-a", "-F", "#(id)")
    refused("TmuxObserve", /literal format/u, "display-message", "-p", "-t", "%0", "#{E:@x}")
    refused("TmuxObserve", /ID target/u, "list-panes", "-t", "work", "-F", "#{pane_id}")
    refused("TmuxChange", /history-limit "many"/u, "set-option", "-g", "history-limit", "many")
  })

  it("admits what the tools issue, read as tmux reads flags", () => {
    admitted("TmuxObserve", "display-message", "-p", "-t", "%0", "#{pane_id}\u001f#{@lmcp_end_abc123}")
    admitted("TmuxChange", "send-keys", "-X", "-N", "3", "-t", "%0", "scroll-up")
    admitted("TmuxChange", "set-option", "-w", "-t", "@1", "synchronize-panes", "on")
    admitted("TmuxChange", "rename-window", "-t", "@1", "--", "##(not run) #[fg=red]")
    // Grouped flags, and a value joined to its flag.
    admitted("PaneCommand", "set-option", "-pu", "-t%0", "@lmcp_claim")
    admitted("PaneCommand", "set-option", "-p", "-F", "-t", "%0", "@lmcp_typed_abc123", "#{history_size} #{cursor_y}")
    admitted("PaneRespawn", "respawn-pane", "-k", "-t", "%0", "--", "top", "-d", "1")
    // After `--`, a key that looks like a flag is a key.
    admitted("PaneInput", "send-keys", "-t", "%0", "-l", "--", "-X")
    admitted("PaneInput", "load-buffer", "-b", "libtmux-mcp-paste-12-0a1b", "-")
    // A -F value of set-option is a format: it must be literal.
    refused("PaneCommand", /literal format/u, "set-option", "-p", "-F", "-t", "%0", "@lmcp_last", "#(id)")
  })

  it("admits the run protocol's own forms and nothing that runs through them", () => {
    const guard = typingGuard("%0", { panePid: 42, cursorX: 2, width: 80, height: 24, generation: "3" })
    admitted("PaneCommand", ...guard)
    admitted("PaneCommand", "set-option", "-pF", "-t", "%0", "@lmcp_run_abc123", "#{?@lmcp_run_abc123,eyJy+/=,}")
    admitted("PaneCommand", "set-option", "-pu", "-t", "%0", "#{?@lmcp_run_abc123,@lmcp_view_ok,@lmcp_run_abc123}")
    admitted("PaneCommand", "set-option", "-p", "-t", "%0", "remain-on-exit", "on")
    // A run's collection: refused when its record is gone, and the pane's last run only while it is this one.
    admitted("PaneCommand", "set-option", "-pu", "-t", "%0", "#{?@lmcp_run_abc123,@lmcp_none,lmcp-run-collected}")
    admitted("PaneCommand", "set-option", "-pu", "-t", "%0", "#{?#{==:#{@lmcp_last},abc123},@lmcp_last,@lmcp_none}")
    admitted("PaneCommand", "set-option", "-p", "-t", "%0", "remain-on-exit-format", "")
    admitted("PaneCommand", "delete-buffer", "-b", `libtmux-mcp-paste-12.3456.4026531836-0a1b2c`)
    // The guard's shape with a command in it, or a branch that unsets a tmux option.
    refused("PaneCommand", /not admitted/u, "set-option", "-pu", "-t", "%0", "#{?#{==:#(id),1},@lmcp_view_ok,lmcp-x}")
    refused("PaneCommand", /not admitted/u, "set-option", "-pu", "-t", "%0", "#{?#{==:1,1},@lmcp_view_ok,status-right}")
    refused("PaneCommand", /not admitted/u, "set-option", "-pu", "-t", "%0", "#{?#{==:1,1},remain-on-exit,lmcp-x}")
    refused("PaneCommand", /not admitted/u, "set-option", "-pu", "-t", "%0", "#{?#{==:1,1},@lmcp_last,status-right}")
    refused("PaneCommand", /not admitted/u, "set-option", "-pu", "-t", "%0", "#{?@lmcp_last,@lmcp_view_ok,@other}")
    refused("PaneCommand", /not admitted/u, "set-option", "-pu", "-t", "%0", "#{?@lmcp_last,@lmcp_last,status}")
    refused("PaneCommand", /literal/u, "set-option", "-pF", "-t", "%0", "@lmcp_last", "#{?@lmcp_last,#(id),}")
    refused("PaneCommand", /remain-on-exit-format/u, "set-option", "-p", "-t", "%0", "remain-on-exit-format", "#(id)")
    refused("PaneCommand", /buffer/u, "delete-buffer", "-b", "someone-elses")
  })

  it("tells literal formats from ones that run or expand again", () => {
    for (const format of ["plain", "##(x)", "#[fg=red]", "#{pane_id}", "a#{@lmcp_g2}b", "####"]) {
      assert.isTrue(isLiteralFormat(format), format)
    }
    for (const format of ["#(id)", "x#(id)", "#{?pane_dead,#(id),}", "#{E:@x}", "#{T:x}", "#D", "end#"]) {
      assert.isFalse(isLiteralFormat(format), format)
    }
  })
})

describe("the one constructor", () => {
  const issued: Array<ReadonlyArray<string>> = []
  const services = makeAuthorities({
    run: (commands) => Effect.sync(() => (issued.push(...commands), "")),
    spawn: (commands) => Effect.sync(() => (issued.push(...commands), "")),
    create: () => Effect.die(new Error("no server"))
  })
  const dies = async (effect: Effect.Effect<string, unknown>) => {
    const before = issued.length
    const exit = await Effect.runPromise(Effect.exit(effect))
    assert.isTrue(Exit.isFailure(exit) && Cause.hasDies(exit.cause))
    assert.strictEqual(issued.length, before, "nothing ran")
  }

  it("dies before anything runs when a cast slips a command past the types", async () => {
    const change = Context.get(services, TmuxChange)
    const observe = Context.get(services, TmuxObserve)
    await dies(change.run([["select-window", "-t", "@0"], ["send-keys", "-X", "-t", "%0", "copy-pipe"] as never]))
    await dies(observe.run([["display-message", "-I", "-t", "%0", "x"] as never]))
    await dies(change.run([["wait-for", "-S", "c"]], { input: "typed" } as never))
    await Effect.runPromise(change.run([["wait-for", "-S", "c"]]))
    assert.deepStrictEqual(issued.at(-1), ["wait-for", "-S", "c"])
  })

  it("takes standard input only with exactly one load-buffer -", async () => {
    const command = Context.get(services, PaneCommand)
    const load = ["load-buffer", "-b", "libtmux-mcp-paste-1-ab", "-"] as const
    assert.match(callRefusal("PaneCommand", [load], {}) ?? "", /standard input/u)
    assert.match(callRefusal("PaneCommand", [["wait-for", "c"]], { input: "x" }) ?? "", /standard input/u)
    assert.match(callRefusal("TmuxChange", [["wait-for", "c"]], { cwd: "/" }) ?? "", /working directory/u)
    await dies(command.run([load, load], { input: "x" }))
    assert.isUndefined(callRefusal("PaneCommand", [load], { input: "x" }))
  })
})

describe("host reach, counted from the grammar", () => {
  it("no authority admits a command that runs on the host, so no tool counts", () => {
    assert.deepStrictEqual(
      (Object.keys(grammar) as ReadonlyArray<AuthorityName>).filter((name) => reachesHost(grammar[name])),
      []
    )
    assert.strictEqual(hostCommandTools(toolNames), 0)
  })

  it("counts every tool whose authority a widened grammar lets run on the host", () => {
    const change = grammar.TmuxChange
    const widened = (forms: typeof change) => ({ ...grammar, TmuxChange: forms })
    const pipe = widened({
      ...change,
      "send-keys": {
        ...change["send-keys"],
        args: [{ what: "a copy command", test: () => true, values: ["cancel", "copy-pipe"] }]
      }
    } as never)
    const status = widened(
      { ...change, "set-option": { ...change["set-option"], options: { "status-right": {} } } } as never
    )
    const shell = widened({ ...change, "run-shell": {} } as never)
    const withChange = toolNames.filter((name) => (manifest[name].effect as ReadonlyArray<string>).includes("change"))
    for (const grammars of [pipe, status, shell]) {
      assert.deepStrictEqual(toolNames.filter((name) => reachesHostCommands(manifest[name], grammars)), withChange)
    }
    assert.isAbove(withChange.length, 20)
  })
})
