import * as Effect from "effect/Effect"
import { assert } from "vitest"
import type { StartupError } from "../../src/domain/StartupError.ts"
import { startup } from "../../src/startup/Startup.ts"
import { runToExit, serverEnv } from "./mcp.ts"
import type { TmuxWorld } from "./tmux.ts"

/** Startup in process for the world's environment plus `env`: the error it refuses with (a success fails the test). */
export const refusalOf = (
  world: TmuxWorld,
  env: Readonly<Record<string, string>>,
  args: ReadonlyArray<string> = []
): Promise<StartupError> =>
  Effect.runPromise(Effect.scoped(Effect.flip(startup(serverEnv(world, env), args, process.getuid?.() ?? 0))))

/** Startup in process refuses it: a StartupError whose message holds every expected text. */
export const assertRefused = async (
  world: TmuxWorld,
  env: Readonly<Record<string, string>>,
  expected: ReadonlyArray<string>,
  args: ReadonlyArray<string> = []
): Promise<void> => {
  const failed = await refusalOf(world, env, args)
  assert.strictEqual(failed._tag, "StartupError")
  for (const text of expected) assert.include(failed.message, text)
}

/** The bin refuses it: exit status 1, nothing on stdout, its line on stderr holding every expected text. */
export const assertBinRefused = async (
  world: TmuxWorld,
  env: Readonly<Record<string, string>>,
  expected: ReadonlyArray<string>,
  args: ReadonlyArray<string> = []
): Promise<void> => {
  const result = await runToExit(world, env, args)
  assert.strictEqual(result.code, 1, result.stderr)
  assert.strictEqual(result.stdout, "")
  assert.match(result.stderr, /^libtmux-mcp: /u)
  for (const text of expected) assert.include(result.stderr, text)
}

/**
 * Configurations startup refuses, each with the texts its message must hold: the whole set runs
 * through startup in process (test/integration/startup-errors.test.ts), and a few of them through
 * the bin (test/e2e/lifecycle.test.ts), where the process's exit, stdout and stderr are the point.
 */
interface StartupErrorCase {
  readonly label: string
  readonly env: Readonly<Record<string, string>>
  readonly args: ReadonlyArray<string>
  readonly expected: ReadonlyArray<string>
}

const refused = (
  label: string,
  env: Readonly<Record<string, string>>,
  args: ReadonlyArray<string>,
  expected: ReadonlyArray<string>
): StartupErrorCase => ({ label, env, args, expected })

export const startupErrorCases: ReadonlyArray<StartupErrorCase> = [
  refused("unknown toolset", { LIBTMUX_TOOLSETS: "inspect,admin" }, [], [
    "admin",
    "valid toolsets: inspect, manage, execute, teardown"
  ]),
  refused("case-sensitive toolset", { LIBTMUX_TOOLSETS: "Inspect" }, [], ["Inspect", "valid toolsets"]),
  refused("empty segment", { LIBTMUX_TOOLSETS: ",inspect" }, [], ["empty segment"]),
  refused("unknown tool", { LIBTMUX_TOOLS: "list_session" }, [], ["list_session", "valid tools: list_sessions"]),
  refused("explicitly empty tools", { LIBTMUX_TOOLS: "" }, [], ["LIBTMUX_TOOLS is set but empty"]),
  refused("explicitly empty exclusions", { LIBTMUX_EXCLUDE_TOOLS: "" }, [], ["LIBTMUX_EXCLUDE_TOOLS is set but empty"]),
  refused("retired safety tiers", { LIBTMUX_SAFETY: "" }, [], ["LIBTMUX_TOOLSETS", "readonly -> inspect"]),
  refused("retired socket path variable", { LIBTMUX_SOCKET_PATH: "/tmp/agent.sock" }, [], [
    "LIBTMUX_SOCKET_PATH is no longer read",
    "LIBTMUX_SOCKET=path:/tmp/agent.sock"
  ]),
  refused("retired prompts variable", { LIBTMUX_MCP_PROMPTS_AS_TOOLS: "0" }, [], [
    "LIBTMUX_MCP_PROMPTS_AS_TOOLS is no longer read",
    "unset it"
  ]),
  refused("wait ceiling out of range", { LIBTMUX_MCP_WAIT_MAX_SECONDS: "0" }, [], ["1 to 110"]),
  refused("wait ceiling not a number", { LIBTMUX_MCP_WAIT_MAX_SECONDS: "soon" }, [], ["1 to 110"]),
  refused("socket form", { LIBTMUX_SOCKET: "path:relative" }, [], ["absolute", "valid forms"]),
  refused("socket name", { LIBTMUX_SOCKET: "a/b" }, [], ["valid forms"]),
  refused("tmux config", { LIBTMUX_TMUX_CONFIG: "mine" }, [], ["minimal, user, or an absolute path"]),
  refused("missing tmux config file", { LIBTMUX_TMUX_CONFIG: "/nonexistent/tmux.conf" }, [], ["does not exist"]),
  refused("suppress history", { LIBTMUX_SUPPRESS_HISTORY: "yes" }, [], ["1", "0"]),
  refused("missing tmux binary", { LIBTMUX_TMUX_BIN: "/nonexistent/tmux" }, [], ["cannot run tmux binary"]),
  refused("a binary that is not tmux", { LIBTMUX_TMUX_BIN: "/bin/true" }, [], [
    "/bin/true -V printed \"\"",
    "tmux 3.2 or newer"
  ]),
  refused("unknown flag", {}, ["--sockett", "x"], ["--socket"]),
  refused("flag without value", {}, ["--toolsets"], ["needs a value"])
]
