/**
 * The agent of `agent.ts`, run against a scripted `LanguageModel` instead of a provider: the model's
 * first turn calls `list_sessions`, its second answers with what the tool returned. It shows that a
 * host program providing a real model type-checks and runs, and CI runs it (`node examples/scripted-agent.ts`).
 */
import { LanguageModel, type Prompt } from "effect/ai"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import * as Stream from "effect/Stream"
import { agent } from "./agent.ts"

/** The last tool result in the prompt, as text: what the scripted model "read". */
const lastToolResult = (prompt: Prompt.Prompt): string | undefined =>
  prompt.content.flatMap((message) => message.role === "tool" ? message.content : []).map((part) =>
    part.type === "tool-result" ? JSON.stringify(part.result) : ""
  ).at(-1)

/** A model that calls one tool, then reports its result. */
const ScriptedModel = Layer.effect(
  LanguageModel.LanguageModel,
  LanguageModel.make({
    generateText: (options) =>
      Effect.succeed(
        lastToolResult(options.prompt) === undefined
          ? [{ type: "tool-call", id: "call-1", name: "list_sessions", params: {} }]
          : [{ type: "text", text: `sessions: ${lastToolResult(options.prompt)}` }]
      ),
    streamText: () => Stream.empty
  })
)

const answer = await Effect.runPromise(agent("Which tmux sessions are there?").pipe(Effect.provide(ScriptedModel)))
console.log(answer)
