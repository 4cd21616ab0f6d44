/** respawn_pane: replace a pane's process with a new one. */
import * as Effect from "effect/Effect"
import * as Schema from "effect/Schema"
import { PaneId } from "../../domain/ids.ts"
import { literalizeFormat } from "../../domain/names.ts"
import { shellKind } from "../../domain/shellProtocol.ts"
import { manifest } from "../../manifest/index.ts"
import { oneAtATime, refuseOwnPane } from "../../programs/guard.ts"
import { PaneInfo, paneOf } from "../../programs/hierarchy.ts"
import { noNul } from "../../programs/keys.ts"
import { orPaneNotFound } from "../../programs/pane.ts"
import { StartDirectory } from "../../programs/spawn.ts"
import { resolvePane } from "../../programs/targets.ts"
import { ArgumentProblem } from "../../services/errors.ts"
import { PaneRespawn } from "../../services/Tmux.ts"
import { readBack } from "../../services/TmuxReads.ts"
import { defineTool } from "../define.ts"

/** @category tools */
export const respawn_pane = defineTool(manifest.respawn_pane, {
  description: "Replace a pane's process with the default shell or command, killing the running one unless " +
    "kill is false; history and screen are discarded. Refuses this MCP server's own pane.",
  input: Schema.Struct({
    pane_id: PaneId,
    // One tmux message carries it: 4,000 characters are at most 12,000 UTF-8 bytes.
    command: Schema.optionalKey(
      Schema.String.annotate({
        description: "the pane's new process"
      }).check(Schema.isMinLength(1), Schema.isMaxLength(4_000), noNul)
    ),
    kill: Schema.optionalKey(
      Schema.Boolean.annotate({ description: "kill the running process first (default true; false needs a dead pane)" })
    ),
    start_directory: Schema.optionalKey(StartDirectory)
  }),
  output: PaneInfo,
  run: (input) =>
    oneAtATime(Effect.gen(function*() {
      if (input.start_directory !== undefined && !input.start_directory.startsWith("/")) {
        return yield* new ArgumentProblem({ detail: "start_directory must be an absolute path" })
      }
      yield* refuseOwnPane(`pane ${input.pane_id}`, Effect.succeed([input.pane_id]))
      // Respawn and read back in one invocation; a missing pane fails it before anything happens.
      const stdout = yield* (yield* PaneRespawn).run([
        [
          "respawn-pane",
          ...(input.kill === false ? [] : ["-k"]),
          ...(input.start_directory === undefined ? [] : ["-c", literalizeFormat(input.start_directory)]),
          "-t",
          input.pane_id,
          ...(input.command === undefined ? [] : ["--", input.command])
        ],
        readBack.panes(input.pane_id)
      ]).pipe(orPaneNotFound(input.pane_id))
      return yield* settled(yield* paneOf(input.pane_id, stdout), input.command)
    }))
})

/** How often, and how many times at most, the new process is looked at again (about a second in all). */
const settleEveryMs = 20
const settleReads = 50

/**
 * The program a command starts, as tmux names a pane's process: the last path part of its first word
 * (`/usr/bin/python3 -q` starts `python3`), past `exec`, `env` and variable assignments, which run
 * the program in their place (`exec fish` and `LANG=C env fish` start `fish`).
 */
export const programOf = (command: string): string => {
  const words = command.trim().split(/\s+/u)
  const first = words.find((word) => word !== "exec" && word !== "env" && !/^[A-Za-z_][A-Za-z0-9_]*=/u.test(word))
  return (first ?? words[0]!).split("/").at(-1)!
}

/**
 * The pane as it is once tmux reports its new process: just after a respawn, tmux still names the
 * shell that starts the command (`sh -c fish` before fish runs), or itself before that, and has no
 * working directory for it yet. Read again until two reads agree on both, the directory is known
 * and, for a command, the pane names its program or one that is neither a shell nor tmux (on a
 * loaded machine two reads may both come before the shell executes the command), within the bound; a
 * pane that closed meanwhile (its command exited) is described as it was last seen, and a shell
 * that keeps the command in front of itself (a compound command) once the bound is spent.
 */
const settled = (first: PaneInfo, command: string | undefined) =>
  Effect.gen(function*() {
    const program = command === undefined ? undefined : programOf(command)
    const starting = (pane: PaneInfo) =>
      program !== undefined && pane.pane_current_command !== program &&
      (shellKind(pane.pane_current_command) !== undefined || pane.pane_current_command.startsWith("tmux"))
    let last = first
    for (let read = 0; read < settleReads; read++) {
      yield* Effect.sleep(settleEveryMs)
      const next = yield* Effect.option(resolvePane(first.pane_id))
      if (next._tag === "None") return last
      const same = next.value.pane_current_command === last.pane_current_command &&
        next.value.pane_current_path === last.pane_current_path
      last = next.value
      if (same && last.pane_current_path !== "" && !starting(last)) return last
    }
    return last
  })
