/**
 * Runs as MCP tasks, for hosts that speak 2026-07-28 and declare the tasks extension: a run that
 * outlasts its threshold comes back as a task, polled to its end, its program's questions put to the
 * person, stopped with tasks/cancel; any server on the socket answers for it (a restarted one, a
 * second one), and a client that did not declare the extension never sees one.
 */
import {
  type ApplicationInputRequest,
  type ApplicationInputResult,
  withTasks
} from "@modelcontextprotocol/ext-tasks/client"
import { writeFileSync } from "node:fs"
import { join } from "node:path"
import { assert, describe, it } from "vitest"
import { shellQuote } from "../../src/domain/quote.ts"
import { harness } from "../support/harness.ts"
import { type Modern, startModern } from "../support/modernClient.ts"
import { until } from "../support/poll.ts"
import { shellEnv } from "../support/shells.ts"
import type { TmuxWorld } from "../support/tmux.ts"

const h = harness("tasks")

const serverIn = (world: TmuxWorld, env: Readonly<Record<string, string>>): Modern => {
  const m = startModern(world, env)
  // Ended (stdin closed, waited for) before its world goes: a server still running as its tmux server
  // is killed could connect again and start another one in a folder about to be removed.
  h.track({ client: undefined as never, stderr: m.stderr, close: m.close })
  return m
}

/** A server in a fresh world, spoken to on 2026-07-28, and a bash pane of its own. */
const open = async () => {
  const world = h.world()
  const env = shellEnv(world, "/bin/bash")
  const m = serverIn(world, env)
  const session = await m.callTool("create_session", {
    session_name: "tasks",
    width: 80,
    height: 24,
    start_directory: world.dir
  })
  return { world, env, m, pane: session.structuredContent.pane_id as string }
}

/** Polls tasks/get until `done` holds of the task; its last answer. */
const pollUntil = (m: Modern, taskId: string, done: (task: any) => boolean) =>
  until("the task's state", async () => (await m.request("tasks/get", { taskId })).result, done, {
    timeoutMs: 60_000,
    intervalMs: 200
  })

/** Starts a run that becomes a task (it outlasts the threshold); the task as created. */
const taskOf = async (m: Modern, pane: string, command: string) => {
  const created = await m.callTool("run_shell_command", { pane_id: pane, command })
  assert.strictEqual(created.resultType, "task", JSON.stringify(created))
  return created
}

// Each case waits on real runs of several seconds (a 10 s run, a 22 s one, the 5 s threshold), on a
// machine the rest of the suite loads: the default 30 s is too little for their sum there.
describe.concurrent("runs as tasks", { timeout: 90_000 }, () => {
  it("a 10 s run becomes a task and completes with its status and output", async () => {
    const { m, pane } = await open()
    const execution = await withTasks(m.port()).callTool("run_shell_command", {
      pane_id: pane,
      command: "for i in $(seq 10); do echo step $i; sleep 1; done"
    })
    if (execution.kind !== "task") assert.fail(`not a task: ${JSON.stringify((await execution.settle()).outcome)}`)
    const { outcome } = await execution.settle()
    assert.strictEqual(outcome.status, "completed")
    const result = (outcome as { result: any }).result
    assert.strictEqual(result.structuredContent.exit_status, 0)
    assert.include(result.structuredContent.output, "step 1\nstep 2")
    assert.include(result.structuredContent.output, "step 10")
    // Counted from the call that typed the run (bench/task-idle.ts measures how soon its end is reported).
    assert.isAtLeast(result.structuredContent.elapsed_seconds, 10)
  })

  it("an installer's three questions go to the person (tasks/update); a secret stays in the pane", async () => {
    const { world, m, pane } = await open()
    const installer = join(world.dir, "install.sh")
    writeFileSync(
      installer,
      [
        // Each answer is read by a program of its own (head), as installers do, not by the shell itself.
        "printf 'Project name? '; name=$(head -n 1)",
        "printf 'Install into /opt [y/n]? '; yes=$(head -n 1)",
        "printf 'API token: '; stty -echo; token=$(head -n 1); stty echo; echo",
        "echo \"installed $name ($yes), token of ${#token} characters\""
      ].join("\n")
    )
    const asked: Array<string> = []
    const token = "tok-5f3a9c-secret"
    // Typed as the requester's handler: an elicitation's answer for any request it is given.
    const answerAs = (answer: { action: "accept"; content?: { answer: string } }) =>
      answer as unknown as ApplicationInputResult<ApplicationInputRequest>
    const execution = await withTasks(m.port(), {
      onInputRequest: async <R extends ApplicationInputRequest>(request: R) => {
        const params = request.params as { message: string; requestedSchema: { properties: object } }
        asked.push(params.message)
        if (params.message.includes("Project name")) {
          return answerAs({ action: "accept", content: { answer: "demo" } }) as ApplicationInputResult<R>
        }
        if (params.message.includes("[y/n]")) {
          return answerAs({ action: "accept", content: { answer: "y" } }) as ApplicationInputResult<R>
        }
        // A secret: the form has no field; the person types it in the pane, then accepts.
        assert.deepStrictEqual(Object.keys(params.requestedSchema.properties), [])
        assert.include(params.message, pane)
        assert.include(params.message, "attach")
        world.tmux("libtmux-mcp", "send-keys", "-t", pane, "-l", token)
        world.tmux("libtmux-mcp", "send-keys", "-t", pane, "Enter")
        return answerAs({ action: "accept" }) as ApplicationInputResult<R>
      }
    }).callTool("run_shell_command", { pane_id: pane, command: `bash ${shellQuote(installer)}` })
    if (execution.kind !== "task") assert.fail(`not a task: ${JSON.stringify((await execution.settle()).outcome)}`)
    const { outcome } = await execution.settle()
    assert.strictEqual(outcome.status, "completed", JSON.stringify(outcome))
    const result = (outcome as { result: any }).result
    assert.strictEqual(result.structuredContent.exit_status, 0)
    assert.include(result.structuredContent.output, `installed demo (y), token of ${token.length} characters`)
    assert.strictEqual(asked.length, 3, asked.join("\n"))
    assert.notInclude(JSON.stringify(result), token)
    assert.notInclude(asked.join("\n"), token)
    // The audit (stderr here) records the answers typed by digest, never the token the person typed.
    assert.notInclude(m.stderr(), token)
    assert.notInclude(m.stderr(), "\"demo\"")
  })

  it("an answer that is not one line is asked for again, saying why; a declined question types nothing", async () => {
    const { m, pane } = await open()
    const created = await taskOf(m, pane, "printf 'Colour? '; c=$(head -n 1); echo \"got <$c>\"")
    const asked = await pollUntil(m, created.taskId, (task) => task?.status === "input_required")
    const [first] = Object.keys(asked.inputRequests)
    await m.request("tasks/update", {
      taskId: created.taskId,
      inputResponses: { [first!]: { action: "accept", content: { answer: "red\nrm -rf x" } } }
    })
    const again = (await m.request("tasks/get", { taskId: created.taskId })).result
    assert.strictEqual(again.status, "input_required")
    const [second] = Object.keys(again.inputRequests)
    assert.notStrictEqual(second, first)
    assert.include(again.statusMessage, "one line")
    await m.request("tasks/update", { taskId: created.taskId, inputResponses: { [second!]: { action: "decline" } } })
    const declined = (await m.request("tasks/get", { taskId: created.taskId })).result
    assert.strictEqual(declined.status, "working")
    assert.include(declined.statusMessage, "not answered here")
    // Nothing was typed: the prompt still waits, and the pane shows no answer.
    await m.request("tasks/cancel", { taskId: created.taskId })
    const ended = await pollUntil(m, created.taskId, (task) => task?.status === "completed")
    assert.notInclude(ended.result.structuredContent.output, "got <")
    assert.notInclude(ended.result.structuredContent.output, "rm -rf")
  })

  it("tasks/cancel interrupts the run as C-c does; the task ends with what it printed, twice asked", async () => {
    const { m, pane } = await open()
    const created = await taskOf(m, pane, "echo before; sleep 60")
    const first = m.request("tasks/cancel", { taskId: created.taskId })
    const second = m.request("tasks/cancel", { taskId: created.taskId })
    assert.deepInclude((await first).result, { resultType: "complete" })
    assert.deepInclude((await second).result, { resultType: "complete" })
    const task = await pollUntil(m, created.taskId, (task) => task?.status !== "working")
    assert.strictEqual(task.status, "completed", JSON.stringify(task))
    assert.strictEqual(task.result.structuredContent.interrupted, true)
    assert.include(task.result.structuredContent.output, "before")
    assert.strictEqual(task.result.resultType, "complete")
  })

  it("a server killed mid-task: a new one answers tasks/get for the same ID; so does a second one", async () => {
    const { world, env, m, pane } = await open()
    // Long enough that the second server, asked once, stops following (10 s after) before the run ends.
    const created = await taskOf(m, pane, "sleep 22; echo finished")
    m.child.kill("SIGKILL")
    const restarted = serverIn(world, env)
    const second = serverIn(world, env)
    const working = (await second.request("tasks/get", { taskId: created.taskId })).result
    assert.strictEqual(working.status, "working", JSON.stringify(working))
    assert.strictEqual(working.taskId, created.taskId)
    assert.match(working.statusMessage, new RegExp(`^running.* in front in ${pane}\\)$`, "u"))
    const done = await pollUntil(restarted, created.taskId, (task) => task?.status === "completed")
    assert.strictEqual(done.result.structuredContent.exit_status, 0)
    assert.include(done.result.structuredContent.output, "finished")
  })

  it("a client that does not declare the extension never sees a task, and gets -32021 for tasks/*", async () => {
    const { m, pane } = await open()
    // The shell is ready first: on a loaded machine its start alone can outlast the 1 s timeout below.
    await m.callTool("run_shell_command", { pane_id: pane, command: "true" }, false)
    const result = await m.callTool("run_shell_command", { pane_id: pane, command: "sleep 4", timeout: 1 }, false)
    assert.notStrictEqual(result.resultType, "task")
    assert.strictEqual(result.resultType, "complete")
    assert.isTrue(result.structuredContent?.timed_out, JSON.stringify(result))
    const created = await taskOf(m, pane, "sleep 7")
    const refused = await m.request("tasks/get", { taskId: created.taskId }, false)
    assert.strictEqual(refused.error?.code, -32021)
    assert.deepStrictEqual(refused.error?.data, {
      requiredCapabilities: { extensions: { "io.modelcontextprotocol/tasks": {} } }
    })
  })

  it("an unknown, guessed or malformed task ID is -32602, and says nothing of the run", async () => {
    const { m, pane } = await open()
    const created = await taskOf(m, pane, "sleep 7")
    const guessed = created.taskId.replace(/[0-9a-f]{32}$/u, "0".repeat(32))
    for (const taskId of [guessed, "p0-000000-" + "1".repeat(32), "nonsense", 42]) {
      const answer = await m.request("tasks/get", { taskId })
      assert.strictEqual(answer.error?.code, -32602, JSON.stringify(answer))
      assert.notInclude(answer.error.message, "sleep")
    }
    assert.strictEqual((await m.request("tasks/cancel", { taskId: guessed })).error?.code, -32602)
    // The guesses stopped nothing: the run goes on as its task.
    assert.strictEqual((await m.request("tasks/get", { taskId: created.taskId })).result.status, "working")
  })
})
